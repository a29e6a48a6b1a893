/**
 * The settings of monitoring (docs/monitoring.md): email alerts over SMTP, and webhooks' key
 * and retries. Read with the platform's shared parsers; start/config.ts composes them.
 */
import type { SettingsReader } from "../platform/settings-reader.ts";
import { DEFAULT_RETRY_SCHEDULE, parseRetrySchedule } from "./webhooks/retry-schedule.ts";

/** Webhooks and email alerts (docs/monitoring.md). */
export type MonitoringSettings = MonitoringConfig;

export interface MonitoringConfig {
  /** SMTP_URL (smtp:// or smtps://, credentials inside): email alerts; undefined → off. A secret: never logged. */
  smtpUrl: string | undefined;
  /** SMTP_FROM: the From of alert emails (required with SMTP_URL). */
  smtpFrom: string | undefined;
  /**
   * WEBHOOK_SECRET_KEY: 32 bytes that encrypt webhook signing secrets at rest. Required on
   * PostgreSQL to create webhooks; the embedded database generates a key file in DATA_DIR.
   */
  webhookSecretKey: Buffer | undefined;
  /** WEBHOOK_RETRY_SCHEDULE: the delay before each retry of a failed delivery, in ms. */
  webhookRetryDelaysMs: number[];
}

export function parseMonitoringSettings(settings: SettingsReader): MonitoringSettings {
  const { read, url, problems } = settings;
  const smtpUrl = url("SMTP_URL", ["smtp:", "smtps:"]);
  const smtpFrom = read("SMTP_FROM");
  if (smtpFrom !== undefined && !/^(?:[^<>\r\n]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/.test(smtpFrom))
    problems.push(`SMTP_FROM must be an address such as alerts@example.com or "wpreport <alerts@example.com>"`);
  if (smtpUrl && !smtpFrom) problems.push("SMTP_URL needs SMTP_FROM, the address alert emails come from");
  const keyText = read("WEBHOOK_SECRET_KEY");
  let webhookSecretKey: Buffer | undefined;
  if (keyText !== undefined) {
    webhookSecretKey = /^[A-Za-z0-9+/_-]{43}=?$/.test(keyText) ? Buffer.from(keyText, "base64") : undefined;
    if (webhookSecretKey?.length !== 32)
      problems.push(
        "WEBHOOK_SECRET_KEY must be 32 random bytes in base64, e.g. the output of: openssl rand -base64 32",
      );
  }
  const schedule = parseRetrySchedule(read("WEBHOOK_RETRY_SCHEDULE") ?? DEFAULT_RETRY_SCHEDULE);
  if (schedule.problem) problems.push(`WEBHOOK_RETRY_SCHEDULE ${schedule.problem}`);
  return { smtpUrl, smtpFrom, webhookSecretKey, webhookRetryDelaysMs: schedule.delaysMs };
}
