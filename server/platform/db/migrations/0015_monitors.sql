-- Issue 25, item 1: monitors — scheduled audits of a site (docs/monitoring.md#monitors).
-- Written only by server/monitoring/.
--
-- The scheduler (monitoring/monitors/scheduler.ts) claims due monitors with `for update skip
-- locked`, advances `next_run_at` and records the run in `monitor_runs` in one transaction; the
-- run's (monitor_id, scheduled_for) is unique, so two worker processes never make one slot twice.
create table monitors (
  id              text primary key,                                -- mon_…
  account_id      text not null references accounts (id) on delete cascade,
  url             text not null,
  -- The normalised site (analyzer/target-url.ts siteKey): GET /api/sites finds a site's monitor by it.
  site_key        text not null,
  environment     text,
  schedule        text not null,                                   -- hourly | daily | weekly | 5-field cron (UTC)
  mode            text not null,
  fail_on         text not null default 'high',
  -- The assertions as their canonical text (shared/diff-options.ts formatAssertions); '' for none.
  assertions      text not null default '',
  enabled         boolean not null default true,
  -- The slot of the schedule the next run is for (no jitter), and when it starts (with jitter).
  next_slot       timestamptz not null,
  next_run_at     timestamptz not null,
  created_at      timestamptz not null default now(),
  updated_at      timestamptz not null default now()
);
create index monitors_account_idx on monitors (account_id, created_at desc, id desc);
create index monitors_due_idx on monitors (next_run_at) where enabled;

create table monitor_runs (
  monitor_id     text not null references monitors (id) on delete cascade,
  -- The schedule's slot (a manual run: the time it was asked for).
  scheduled_for  timestamptz not null,
  trigger        text not null default 'schedule' check (trigger in ('schedule', 'manual')),
  -- claimed: the slot is taken, the report is being asked for; queued: it has its report;
  -- skipped: it was refused (quota, limits, the URL) and monitor.skipped was emitted.
  status         text not null default 'claimed' check (status in ('claimed', 'queued', 'skipped')),
  report_id      text,
  reason         text,
  detail         text,
  created_at     timestamptz not null default now(),
  primary key (monitor_id, scheduled_for)
);
create index monitor_runs_recent_idx on monitor_runs (monitor_id, created_at desc);
