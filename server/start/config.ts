/**
 * Configuration from environment variables, validated once at start-up.
 *
 * Each feature reads its own variables (`<feature>/settings.ts`, with the shared parsers of
 * platform/settings-reader.ts); this file only composes them into one Config, grouped by
 * feature (`config.reports.analysisTimeoutMs`). The names are
 * part of the public contract (docs/api.md, "Configuration and scripting contract") and are
 * documented as a table in docs/configuration.md; a test keeps the two in sync.
 * Every bad value is reported together, one clear line each, so an operator fixes them
 * in one go instead of one restart per mistake.
 */
import { type AccessSettings, parseAccessSettings } from "../access/settings.ts";
import { type BillingSettings, parseBillingSettings } from "../billing/settings.ts";
import { type IntelSettings, parseIntelSettings } from "../intel/settings.ts";
import { type MonitoringSettings, parseMonitoringSettings } from "../monitoring/settings.ts";
import { type PlatformSettings, parsePlatformSettings } from "../platform/settings.ts";
import { ConfigError, type Env, settingsReader } from "../platform/settings-reader.ts";
import { parseReportsSettings, type ReportsSettings } from "../reports/settings.ts";

export { ConfigError } from "../platform/settings-reader.ts";

/**
 * Every setting, grouped by feature (docs/decisions.md, "Each feature reads its own settings"):
 * `config.reports.analysisTimeoutMs`, `config.platform.dataDir`. A feature's code is handed its
 * own group (or a Pick of it), and reads its settings without knowing the other features'.
 */
export interface Config {
  platform: PlatformSettings;
  access: AccessSettings;
  reports: ReportsSettings;
  intel: IntelSettings;
  billing: BillingSettings;
  monitoring: MonitoringSettings;
}

/** Reads and validates the configuration; throws ConfigError listing every bad value. */
export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const settings = settingsReader(env, cwd);
  const config: Config = {
    platform: parsePlatformSettings(settings),
    access: parseAccessSettings(settings),
    reports: parseReportsSettings(settings),
    intel: parseIntelSettings(settings),
    billing: parseBillingSettings(settings),
    monitoring: parseMonitoringSettings(settings),
  };
  if (settings.problems.length > 0) throw new ConfigError(settings.problems);
  return config;
}
