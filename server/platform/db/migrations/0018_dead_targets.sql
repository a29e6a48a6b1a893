-- Dead targets fail fast (issue 30; docs/target-policy.md "Dead targets fail fast").
--
-- A target key (host:… or addr:…) whose last analysis got no answer within the connect or
-- first-byte deadline is remembered for a short time (DEAD_TARGET_WINDOW_MS). Meanwhile new
-- analyses of it first make one quick reachability check (DEAD_TARGET_CHECK_MS) and end
-- `site_unreachable` when it still does not answer, instead of holding a slot for the whole
-- deadline. An analysis that gets an answer removes the rows of its keys.
create table dead_targets (
  target      text primary key,
  until       timestamptz not null,
  reason      text not null           -- the last failure's kind: timeout, aborted
);
