-- Which monitor's run made a report (issue 25): report events carry it as `monitor_id`, and a
-- monitor finds its runs' reports by it. Null for reports asked for through the API, the web
-- or the Action. No foreign key: a deleted monitor's reports keep the id they were made under.
alter table reports add column monitor_id text;
create index reports_monitor_idx on reports (monitor_id, created_at desc) where monitor_id is not null;
