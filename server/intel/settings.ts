/**
 * The settings of component intelligence (docs/intel.md): the file imported at start-up, the
 * sources and their refresh. Read with the platform's shared parsers; start/config.ts
 * composes them.
 */
import path from "node:path";
import { cronProblem } from "../platform/cron.ts";
import type { SettingsReader } from "../platform/settings-reader.ts";
import { WORDFENCE_FEED_URL, WPORG_API_URL, WPVULNERABILITY_API_URL } from "./source-ids.ts";

/** The sources and their refresh (IntelConfig), and the file imported at start-up. */
export interface IntelSettings extends IntelConfig {
  /** Component intelligence file in our format, imported at start-up when it changed; see docs/intel.md. */
  intelFile: string | undefined;
}

export interface IntelConfig {
  /** WORDFENCE_API_KEY: turns the Wordfence Intelligence feed on. A secret: never logged. */
  wordfenceApiKey: string | undefined;
  /** The feed's URL (a local copy or a test stub may stand in). */
  wordfenceFeedUrl: string;
  /** WordPress.org API origin for latest versions; undefined when lookups are off (air-gapped). */
  wporgApiUrl: string | undefined;
  /** WPVulnerability's API origin for on-demand advisories; undefined when lookups are off (air-gapped). */
  wpvulnerabilityApiUrl: string | undefined;
  /** When the refresh job runs (cron, UTC); undefined = never on its own. */
  refreshCron: string | undefined;
  /** How long a report waits for WordPress.org answers it does not have cached. */
  lookupBudgetMs: number;
  /** A feed download's whole deadline, and the longest it may go without receiving a byte. */
  downloadTimeoutMs: number;
  stallTimeoutMs: number;
}

export function parseIntelSettings(settings: SettingsReader): IntelSettings {
  const { read, int, url, problems, cwd } = settings;
  const wporgRaw = read("WPORG_API_URL");
  const wpvulnerabilityRaw = read("WPVULNERABILITY_API_URL");
  const cronRaw = read("INTEL_REFRESH_CRON") ?? "0 */6 * * *";
  const cronOff = cronRaw.toLowerCase() === "off";
  const cronError = cronOff ? undefined : cronProblem(cronRaw);
  if (cronError) {
    problems.push(
      `INTEL_REFRESH_CRON must be a cron expression in UTC such as "0 */6 * * *", or off; "${cronRaw}" is not: ${cronError}`,
    );
  }
  const intelFile = read("INTEL_FILE");
  return {
    intelFile: intelFile ? path.resolve(cwd, intelFile) : undefined,
    wordfenceApiKey: read("WORDFENCE_API_KEY"),
    wordfenceFeedUrl: url("WORDFENCE_FEED_URL", ["http:", "https:"]) ?? WORDFENCE_FEED_URL,
    wporgApiUrl:
      wporgRaw?.toLowerCase() === "off" ? undefined : (url("WPORG_API_URL", ["http:", "https:"]) ?? WPORG_API_URL),
    wpvulnerabilityApiUrl:
      wpvulnerabilityRaw?.toLowerCase() === "off"
        ? undefined
        : (url("WPVULNERABILITY_API_URL", ["http:", "https:"]) ?? WPVULNERABILITY_API_URL),
    refreshCron: cronOff ? undefined : cronRaw,
    lookupBudgetMs: int("INTEL_LOOKUP_BUDGET_MS", 1_500, 0, 30_000),
    downloadTimeoutMs: int("INTEL_DOWNLOAD_TIMEOUT_MS", 15 * 60_000, 1_000, 3_600_000),
    stallTimeoutMs: int("INTEL_STALL_TIMEOUT_MS", 60_000, 100, 600_000),
  };
}
