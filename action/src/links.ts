/** Where a report is, for people and for scripts. `apiUrl` is the service's origin (the Action's `api-url`, the CLI's WPREPORT_API_URL). */

/**
 * The report's page in the web interface: what a person opens from the job summary, the PR
 * comment or the CLI's output. A browser without a session is sent to log in, then back here.
 */
export function reportUrl(apiUrl: string, id: string): string {
  return `${apiUrl}/reports/${encodeURIComponent(id)}`;
}

/** The report as JSON from the API (needs the token: for scripts, not for people). */
export function reportApiUrl(apiUrl: string, id: string): string {
  return `${apiUrl}/api/report/${encodeURIComponent(id)}`;
}
