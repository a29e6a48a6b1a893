-- Issue 30: alert email goes only to recipients who confirmed by a link sent to them, and each
-- account's alert email is rate-limited (docs/monitoring.md#email-alerts). Written only by
-- server/monitoring/.
create table if not exists alert_recipients (
  account_id   text not null references accounts (id) on delete cascade,
  email        text not null,
  -- SHA-256 of the newest confirmation link's token (the token itself is only in the email).
  token_hash   text,
  -- When the newest confirmation email was asked for; a link is good for 7 days.
  requested_at timestamptz not null default now(),
  confirmed_at timestamptz,
  primary key (account_id, email)
);
create index if not exists alert_recipients_token on alert_recipients (token_hash) where token_hash is not null;

-- Alert emails (and confirmation emails) an account was sent, per hour.
create table if not exists alert_mail_counts (
  account_id text not null references accounts (id) on delete cascade,
  hour       timestamptz not null,
  sent       integer not null default 0,
  primary key (account_id, hour)
);
