-- Web interface and billing: passwords, browser sessions, subscription state, and the
-- Stripe events already processed (webhooks are idempotent by event id).

alter table accounts
  add column password_hash text,                         -- Argon2id (Bun.password); null for CLI-only accounts
  add column password_changed_at timestamptz,
  add column stripe_customer_id text,
  add column stripe_subscription_id text,
  add column subscription_status text,                   -- Stripe's status: active, trialing, past_due, canceled, …
  add column current_period_end timestamptz,             -- end of the paid period
  add column cancel_at_period_end boolean not null default false,
  -- `created` of the newest subscription event applied: an older event arriving late is ignored.
  add column billing_event_at timestamptz;
create unique index accounts_stripe_customer_key on accounts (stripe_customer_id) where stripe_customer_id is not null;

create table sessions (
  id_hash       bytea primary key,                       -- SHA-256 of the cookie value
  account_id    text not null references accounts (id) on delete cascade,
  created_at    timestamptz not null default now(),
  last_seen_at  timestamptz not null default now(),
  expires_at    timestamptz not null
);
create index sessions_account_idx on sessions (account_id);
create index sessions_expires_idx on sessions (expires_at);

create table stripe_events (
  id            text primary key,                        -- evt_…
  type          text not null,
  created_at    timestamptz not null,                    -- the event's own `created`
  processed_at  timestamptz not null default now()
);
