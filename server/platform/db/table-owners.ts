/**
 * Which feature folder writes each table (docs/architecture.md, "Boundaries"). Every other
 * folder may read a table, but changes it only by calling its owner's service: one place holds
 * the rules of each table's rows. test/platform/table-owners.test.ts reads every SQL statement
 * under server/ and fails when a table is written from another folder, or when a migration
 * creates a table that is not listed here.
 */
export const TABLE_OWNERS = {
  schema_migrations: "platform",
  accounts: "accounts",
  sessions: "web",
  api_tokens: "access",
  idempotency_keys: "access",
  plans: "billing",
  usage_periods: "billing",
  credit_reservations: "billing",
  stripe_events: "billing",
  reports: "reports",
  host_slots: "reports",
  target_hourly_requests: "reports",
  unreachable_failures: "reports",
  target_waits: "reports",
  dead_targets: "reports",
  site_auth_secrets: "reports",
  intel_sources: "intel",
  intel_advisories: "intel",
  intel_latest_versions: "intel",
  intel_wporg_versions: "intel",
  intel_wpvulnerability: "intel",
  directory_sources: "intel",
  directory_names: "intel",
  directory_name_keys: "intel",
  events: "monitoring",
  webhooks: "monitoring",
  webhook_deliveries: "monitoring",
  alert_settings: "monitoring",
  alert_recipients: "monitoring",
  alert_mail_counts: "monitoring",
  monitors: "monitoring",
  monitor_runs: "monitoring",
  site_components: "monitoring",
  vulnerability_notices: "monitoring",
  branding: "portfolio",
} as const satisfies Record<string, string>;

export type Table = keyof typeof TABLE_OWNERS;
