-- The gate verdict of a report (docs/diff.md#the-baseline): recorded by the first judgement of
-- the report against a baseline rule (GET /api/report/{id}/diff with base=last-passing, latest
-- or a report id; not base=none) and never changed afterwards, so asking again with laxer
-- thresholds cannot turn a failing report into a baseline. `last-passing` baselines are the
-- reports whose gate_result is 'pass'.
alter table reports
  add column gate_result text check (gate_result in ('pass', 'fail')),
  add column gate_base_id text,                    -- the baseline that judgement compared with (null: none)
  add column gate_rule text check (gate_rule in ('last-passing', 'latest', 'report')),
  add column gate_options jsonb,                   -- the thresholds it was judged with (fail_on, max_score_drop, budgets, assert)
  add column gate_judged_at timestamptz;

-- The baseline lookups: passing, never judged, or first judged reports of a site and environment.
create index reports_gate_idx on reports (account_id, site_key, gate_result, created_at desc, id desc)
  where status = 'completed';
