/**
 * The settings of API access: the rate limit's window. Read with the platform's shared
 * parsers; start/config.ts composes them.
 */
import type { SettingsReader } from "../platform/settings-reader.ts";

export interface AccessSettings {
  /** Length of a rate-limit window; a plan's per-minute limit is scaled to it. */
  rateLimitWindowSeconds: number;
}

export function parseAccessSettings(settings: SettingsReader): AccessSettings {
  return { rateLimitWindowSeconds: settings.int("RATE_LIMIT_WINDOW_SECONDS", 60, 1, 3_600) };
}
