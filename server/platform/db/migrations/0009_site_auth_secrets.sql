-- Site credentials (basic auth, headers, cookies of a protected staging site) on their way from
-- the API process to the worker that analyses the report. Only ciphertext is stored: AES-256-GCM
-- under a key the service processes hold (SITE_AUTH_KEY, or on the embedded database a key made
-- at start-up and kept in memory), bound to the report id. The row is deleted in the same
-- transaction that stores the report's result (or its failure), and the sweeper deletes what a
-- crash left behind, so nothing outlives the analysis (docs/decisions.md, "Site credentials").
create table site_auth_secrets (
  report_id text primary key references reports (id) on delete cascade,
  key_id text not null,          -- which key sealed it: a hash prefix of the key, never the key
  sealed bytea not null,         -- 12-byte IV, 16-byte tag, ciphertext
  expires_at timestamptz not null
);

create index site_auth_secrets_expiry on site_auth_secrets (expires_at);
