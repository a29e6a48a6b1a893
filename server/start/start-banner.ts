/**
 * What `npm start` prints on the embedded default while no account exists: how to get a token
 * and make the first call. The token command must reach the *same* database as the server, so
 * a non-default DATA_DIR is part of the command (without it the CLI would quietly create a
 * second database in ./data, and its token would get 401 from this server).
 */
import path from "node:path";
import type { PlatformSettings } from "../platform/settings.ts";
import type { ReportsSettings } from "../reports/settings.ts";

/** The embedded database's folder when DATA_DIR is unset (start/config.ts resolves it the same way). */
const DEFAULT_DATA_DIR = "./data";

/** A word for a POSIX shell: as is when it is plainly safe, otherwise single-quoted. */
export function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The admin CLI's command prefix that reaches this server's embedded database. */
export function cliEnvironmentFor(config: Pick<PlatformSettings, "dataDir">, cwd = process.cwd()): string {
  return path.resolve(cwd, DEFAULT_DATA_DIR) === config.dataDir ? "" : `DATA_DIR=${shellWord(config.dataDir)} `;
}

export function firstRunBanner(
  config: {
    platform: Pick<PlatformSettings, "dataDir" | "publicBaseUrl">;
    reports: Pick<ReportsSettings, "targetAllowlist">;
  },
  cwd = process.cwd(),
): string {
  const base = config.platform.publicBaseUrl;
  return `
  wpreport is running at ${base} on the embedded database (${config.platform.dataDir}).

  Sign up in the browser at ${base}/signup — or create an API token from the
  command line (in another terminal, in this folder, while this keeps running):
    TOKEN=$(${cliEnvironmentFor(config.platform, cwd)}npm run --silent admin -- token create --email you@example.com --plan starter)
  Then make your first call:
    curl -s -H "Authorization: Bearer $TOKEN" ${base}/api/usage
${localSites(config.reports.targetAllowlist)}
`;
}

/**
 * Public sites can be analyzed at once; a site on this machine or the LAN (a local WordPress,
 * a staging server) is refused by the address policy until it is listed in TARGET_ALLOWLIST —
 * which a newcomer trying the service on a local site needs to know before the first 422.
 */
function localSites(allowlist: readonly string[]): string {
  if (allowlist.length > 0) {
    return `
  Local and private sites the analyzer may reach (TARGET_ALLOWLIST): ${allowlist.join(", ")}.
`;
  }
  return `
  Public sites can be analyzed now. A site on this machine or your network (a local
  WordPress, a staging server) is refused until you list it with its port when starting:
    TARGET_ALLOWLIST=localhost:8080,127.0.0.1:8080 npm start
`;
}
