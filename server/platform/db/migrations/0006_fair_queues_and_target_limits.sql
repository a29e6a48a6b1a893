-- Fair queues and per-target limits (issue 21; docs/plans.md "Fair queues",
-- docs/target-policy.md "Per-target limits").
--
-- Slots: host_slots already holds numbered, expiring slots keyed by one text column; it now
-- holds every kind of "at most N at once" claim, told apart by a prefix of the key:
--   account:<account id>   analyses of one account at once (the plan's concurrency), claimed
--                          in the database so that two worker processes cannot both start one
--                          (pg-boss's group concurrency alone raced: 2 at once on Free);
--   host:<canonical host>  analyses of one site at once, whatever its spelling;
--   addr:<IP address>      analyses of one resolved address at once, whatever the name.
-- No change of shape is needed; the table keeps its name.

-- The per-account admission check counts an account's unfinished reports.
create index reports_unfinished_by_account on reports (account_id) where status in ('queued', 'running');

-- Reports that failed because the site never answered, per account: a sync call deletes its
-- failed report, so the report rows cannot be counted. Rows older than a minute are swept.
create table unreachable_failures (
  account_id text not null,
  failed_at timestamptz not null default now()
);
create index unreachable_failures_by_account on unreachable_failures (account_id, failed_at);

-- Aggressive requests granted per target and hour (keys as above: host:… and addr:…).
create table target_hourly_requests (
  target text not null,
  hour timestamptz not null,
  granted int not null default 0,
  primary key (target, hour)
);
