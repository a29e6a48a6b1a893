-- Exact charges (docs/plans.md, "What is charged"): a report is charged once, only when it
-- completed (complete enough to be graded) and its client could learn of it. The report row
-- records both facts, so that "credits used = reports charged" can be checked by a query.
alter table reports
  add column delivered_at timestamptz,   -- when its client was told of it (201, 202, a read by id); null: a synchronous call that has not answered
  add column charged_at timestamptz,     -- when its credit was taken; null: not charged
  add column billable boolean not null default true, -- false: completed but incomplete (docs/report.md), never charged
  add column idempotency_key text;       -- the Idempotency-Key that made it, if any

-- Reports made before this migration were answered and charged as they completed.
update reports set delivered_at = coalesce(completed_at, created_at);
update reports set charged_at = completed_at where status = 'completed';

-- Undelivered reports are few and looked for by the sweeper.
create index reports_undelivered_idx on reports (created_at) where delivered_at is null;

-- An Idempotency-Key is bound to the report it made (report_id, set in the transaction that
-- stores the report) from then on, across errors and process deaths. `claim_id` names the
-- request that holds a key not yet bound, so that only that request can bind it.
alter table idempotency_keys add column claim_id text;
