-- wpreport schema v1: accounts, plans, API tokens, usage and credit reservations,
-- reports and idempotency keys. Applied once, in a transaction, under an advisory lock.

create table plans (
  id                  text primary key,
  name                text not null,
  price_eur_cents     integer,                      -- null: not sold on its own (Premium)
  monthly_quota       integer not null check (monthly_quota >= 0),
  requests_per_minute integer not null check (requests_per_minute > 0),
  sort_order          integer not null default 0
);

create table accounts (
  id                  text primary key,
  email               text not null,
  plan_id             text not null references plans (id) default 'free',
  -- Per-account override of the plan's rate limit (support cases, benchmarks).
  rate_limit_per_minute integer check (rate_limit_per_minute is null or rate_limit_per_minute > 0),
  created_at          timestamptz not null default now(),
  updated_at          timestamptz not null default now()
);
create unique index accounts_email_key on accounts (lower(email));

create table api_tokens (
  id            text primary key,
  account_id    text not null references accounts (id) on delete cascade,
  name          text not null,
  prefix        text not null,                      -- shown to the owner, e.g. wpr_a1B2c3
  token_hash    bytea not null,                     -- SHA-256 of the whole token
  created_at    timestamptz not null default now(),
  last_used_at  timestamptz,
  expires_at    timestamptz,
  revoked_at    timestamptz
);
create unique index api_tokens_hash_key on api_tokens (token_hash);
create index api_tokens_account_idx on api_tokens (account_id, created_at desc);

-- One row per account and quota period (calendar month, UTC). `used` counts reports
-- produced; `reserved` counts analyses under way whose credit is held.
create table usage_periods (
  account_id    text not null references accounts (id) on delete cascade,
  period_start  date not null,
  used          integer not null default 0 check (used >= 0),
  reserved      integer not null default 0 check (reserved >= 0),
  primary key (account_id, period_start)
);

-- Every held credit, so that a crash mid-analysis can be undone by the sweeper.
create table credit_reservations (
  id            text primary key,
  account_id    text not null,
  period_start  date not null,
  created_at    timestamptz not null default now(),
  expires_at    timestamptz not null,
  foreign key (account_id, period_start) references usage_periods (account_id, period_start)
    on delete cascade
);
create index credit_reservations_expires_idx on credit_reservations (expires_at);

create table reports (
  id             text primary key,
  account_id     text not null references accounts (id) on delete cascade,
  url            text not null,                     -- as asked
  site_key       text not null,                     -- normalised site, for "same site" queries
  status         text not null check (status in ('queued', 'running', 'completed', 'failed')),
  metadata       jsonb not null default '{}'::jsonb,
  environment    text generated always as (metadata ->> 'environment') stored,
  git_ref        text generated always as (metadata ->> 'git_ref') stored,
  score          integer,
  grade          text,
  body           jsonb not null,
  created_at     timestamptz not null default now(),
  completed_at   timestamptz
);
create index reports_account_created_idx on reports (account_id, created_at desc, id desc);
create index reports_account_site_idx on reports (account_id, site_key, created_at desc, id desc);
create index reports_unfinished_idx on reports (created_at) where status in ('queued', 'running');

create table idempotency_keys (
  account_id     text not null references accounts (id) on delete cascade,
  key            text not null,
  request_hash   text not null,
  state          text not null check (state in ('in_progress', 'completed')),
  response_status integer,
  report_id      text,
  created_at     timestamptz not null default now(),
  expires_at     timestamptz not null,
  primary key (account_id, key)
);
create index idempotency_keys_expires_idx on idempotency_keys (expires_at);
