/**
 * Configuration from environment variables, validated once at start-up.
 *
 * Each feature reads its own variables (`<feature>/settings.ts`, with the shared parsers of
 * platform/settings-reader.ts); this file only composes them into one Config. The names are
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
 * Every setting, flat: the features' settings side by side (docs/decisions.md, "Each feature
 * reads its own settings"). A feature's code asks for the fields it uses with Pick<Config, …>.
 */
export type Config = PlatformSettings &
  AccessSettings &
  ReportsSettings &
  IntelSettings &
  BillingSettings &
  MonitoringSettings;

/** Reads and validates the configuration; throws ConfigError listing every bad value. */
export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const settings = settingsReader(env, cwd);
  const config: Config = {
    ...parsePlatformSettings(settings),
    ...parseAccessSettings(settings),
    ...parseReportsSettings(settings),
    ...parseIntelSettings(settings),
    ...parseBillingSettings(settings),
    ...parseMonitoringSettings(settings),
  };
  if (settings.problems.length > 0) throw new ConfigError(settings.problems);
  return config;
}
