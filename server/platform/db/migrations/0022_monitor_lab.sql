-- Issue 32: a monitor may ask for a lab run (a page loaded in a browser) with each report:
-- its options {device, throttling, runs} (server/reports/report-options.ts LabOptions), or null
-- for none. Written only by server/monitoring/.
alter table monitors add column lab jsonb;
