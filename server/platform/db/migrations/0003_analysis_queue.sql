-- Analyses run as jobs on a queue (pg-boss, in its own schema `pgboss`, installed by pg-boss
-- itself). The report row carries what a worker needs to finish it exactly once: the credit
-- it holds, the normalised target, and why it failed (to answer a waiting sync request with
-- the same problem the analysis raised).

alter table reports
  add column reservation_id text,                 -- the credit held until the report completes or fails
  add column target text,                         -- the validated URL the worker analyses
  add column started_at timestamptz,              -- when a worker began (null while queued)
  add column failure jsonb;                       -- { code, detail, extensions } of a failed analysis

-- Politeness: at most HOST_CONCURRENCY analyses of one site at a time, across every worker.
-- A worker holds one numbered slot of the host while it analyses; a crashed worker's slot
-- expires on its own.
create table host_slots (
  host text not null,
  slot int not null,
  report_id text not null,
  expires_at timestamptz not null,
  primary key (host, slot)
);
