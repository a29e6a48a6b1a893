-- Each unfinished report's own deadline: the sweeper fails it (and its credit's hold ends) at
-- stale_at, which depends on its kind: an ordinary analysis, or one with a lab run, whose browser
-- may take LAB_TIMEOUT_MS more (server/reports/deadlines.ts). Reports queued by an older release
-- have none; the sweeper gives those the longest deadline. `lab` says which queue a report waits
-- on (lab reports have their own), so a queued report's Queue-Position counts only the reports
-- ahead of it on its own queue. Written only by server/reports/.
alter table reports
  add column stale_at timestamptz,
  add column lab boolean not null default false;
