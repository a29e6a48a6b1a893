-- Issue 25: per-account email alerts (docs/monitoring.md#email-alerts). Written only by
-- server/monitoring/.
create table alert_settings (
  account_id text primary key references accounts (id) on delete cascade
);
alter table alert_settings
  add column if not exists recipients        text[] not null default '{}',
  -- false: one email per event at once; true: one email a day with the day's events.
  add column if not exists digest            boolean not null default false,
  add column if not exists events            text[] not null
    default '{monitor.regressed,monitor.skipped,vulnerability.found,report.failed}',
  -- The daily digest has covered the account's events up to here.
  add column if not exists digest_sent_until timestamptz,
  add column if not exists updated_at        timestamptz not null default now();
