/**
 * The service's versions, in one place:
 * - SERVICE_VERSION: this build of the service (package.json), in logs and the intel sources'
 *   User-Agent;
 * - API_VERSION: semver of the v1 API contract (shared/api.ts, the clients share it).
 * The report format has its own (REPORT_SCHEMA_VERSION, shared/report.ts), the Action and the
 * CLI theirs (action/package.json), and the analyzer its User-Agent (analyzer/user-agent.ts).
 */
import manifest from "../../package.json" with { type: "json" };

export const SERVICE_VERSION: string = manifest.version;

export { API_VERSION } from "../../shared/api.ts";

/** How the service introduces itself to its data sources (WordPress.org, Wordfence). */
export const SERVICE_USER_AGENT = `wpreport/${SERVICE_VERSION} (+https://github.com/wpreport/wpreport)`;
