-- Issue 33, item 2: a monitor of a staging site may relax certificate checks for that site's own
-- origin, as a report request may (shared/site-tls.ts; docs/monitoring.md). Off unless set on the
-- monitor. Written only by server/monitoring/.
alter table monitors
  add column tls text not null default 'verify' check (tls in ('verify', 'insecure')),
  add column tls_ca text;
