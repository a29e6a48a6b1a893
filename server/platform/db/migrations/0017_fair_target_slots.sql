-- Fair target slots (issue 30; docs/target-policy.md "Fair slot order").
--
-- A job that finds its target (host:… or addr:… keys) busy no longer polls for a free slot
-- in a lottery: it is written down as waiting, and free slots are handed out to the waiting
-- jobs in a fair order, decided in one transaction under one advisory lock, whichever worker
-- process runs it (server/reports/slots.ts):
-- - the account holding the fewest of the target's slots goes first; ties go to the oldest job;
-- - while other accounts wait for a target, no account takes more than half of its slots.

-- Whose slot it is: the fair order counts the slots each account holds of a target.
-- Null for account:… keys (the key names the account) and for slots taken by older releases.
alter table host_slots add column account_id text;

-- Jobs waiting for a target: one row per key the job needs. A waiting job holds no worker:
-- its job is offered again shortly, and renews its row each time. A row whose job stopped
-- renewing it (the report was cancelled or finished, its worker died) lapses at expires_at.
create table target_waits (
  target      text not null,
  report_id   text not null,
  account_id  text not null,
  since       timestamptz not null,   -- the report's creation: ties in the fair order go to the oldest
  expires_at  timestamptz not null,
  job_id      text,                   -- the pg-boss job that offers it again: started at once when granted
  primary key (target, report_id)
);
create index target_waits_by_report on target_waits (report_id);
