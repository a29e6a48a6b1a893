-- Issue 25: the events outbox, webhooks and their deliveries (docs/monitoring.md).
--
-- An event is written once, in the transaction of the change it reports; in that same
-- transaction each enabled webhook of the account subscribed to its type gets a delivery row
-- and a pg-boss job (queue webhook-delivery). Retries are further jobs, each queued in the
-- transaction that records the failed attempt.

create table events (
  id          text primary key,                                  -- evt_…: the webhook-id header
  account_id  text not null references accounts (id) on delete cascade,
  type        text not null,
  data        jsonb not null,
  created_at  timestamptz not null default now()
);
-- The daily digest and the retention sweep read an account's events by time.
create index events_account_time_idx on events (account_id, created_at);
create index events_time_idx on events (created_at);

create table webhooks (
  id                         text primary key,                   -- whk_…
  account_id                 text not null references accounts (id) on delete cascade,
  url                        text not null,
  events                     text[] not null,
  format                     text not null default 'standard' check (format in ('standard', 'slack')),
  description                text,
  -- Signing secrets (whsec_…) must be usable to sign, so they are encrypted (AES-256-GCM
  -- under WEBHOOK_SECRET_KEY or the embedded key file), never hashed; the webhook id is the
  -- associated data, so a sealed secret cannot be moved to another row.
  secret_enc                 text not null,
  previous_secret_enc        text,
  previous_secret_expires_at timestamptz,
  disabled_at                timestamptz,
  disabled_reason            text,
  -- Since when every attempt has failed (null after a success); 3 days of it disable the webhook.
  failing_since              timestamptz,
  created_at                 timestamptz not null default now(),
  updated_at                 timestamptz not null default now()
);
create index webhooks_account_idx on webhooks (account_id, created_at desc, id desc);

create table webhook_deliveries (
  id               text primary key,                             -- dlv_…
  webhook_id       text not null references webhooks (id) on delete cascade,
  event_id         text not null references events (id) on delete cascade,
  trigger          text not null default 'event' check (trigger in ('event', 'test', 'redelivery')),
  status           text not null default 'pending' check (status in ('pending', 'succeeded', 'failed')),
  attempts         integer not null default 0,
  last_status      integer,
  last_error       text,
  last_response    text,
  last_duration_ms integer,
  last_attempt_at  timestamptz,
  next_attempt_at  timestamptz,
  created_at       timestamptz not null default now()
);
create index webhook_deliveries_webhook_idx on webhook_deliveries (webhook_id, created_at desc, id desc);
create index webhook_deliveries_event_idx on webhook_deliveries (event_id);
