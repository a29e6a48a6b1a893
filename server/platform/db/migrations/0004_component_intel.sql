-- Component intelligence (docs/intel.md): known vulnerabilities and latest versions of
-- WordPress core, plugins and themes, from feeds refreshed in the background.
--
-- Every import writes a new *generation* of its source's rows beside the one being served
-- and then moves the source's `generation` pointer in one statement: readers see the old
-- data or the new, never half an import, and a killed or failed import leaves only rows of
-- a generation nobody reads (the next import of that source deletes them).

create table intel_sources (
  id              text primary key,          -- wordfence, file, wordpress.org
  generation      bigint,                    -- the import being served; null = none yet
  as_of           timestamptz,               -- how current the data is
  fetched_at      timestamptz,               -- when the served import finished
  etag            text,                      -- validators of the served download (conditional refresh)
  last_modified   text,
  content_sha256  text,                      -- of the served import's bytes (an unchanged file is not re-imported)
  record_count    integer not null default 0,
  attribution     text,                      -- the notices the source's terms require with its data
  checked_at      timestamptz,               -- the last refresh attempt, a 304 included
  last_error      text,                      -- why the last attempt failed; null after a success
  -- One import of a source at a time (a lease: it works on PGlite's single session too).
  importing_generation bigint,
  import_lease_until   timestamptz
);

create sequence intel_generation_seq;

-- One row per (advisory, affected component) of a generation.
create table intel_advisories (
  source          text not null,
  generation      bigint not null,
  component_type  text not null check (component_type in ('wordpress', 'plugin', 'theme')),
  slug            text not null,
  id              text not null,
  title           text not null,
  severity        text not null,
  cvss_score      real,
  cvss_rating     text,
  cvss_vector     text,
  cve             text[] not null default '{}',
  affected        jsonb not null,            -- [{from, from_inclusive, to, to_inclusive}]
  patched         text[] not null default '{}',
  refs            text[] not null default '{}',
  published_at    timestamptz,
  updated_at      timestamptz,
  primary key (component_type, slug, source, generation, id)
);
create index intel_advisories_generation_idx on intel_advisories (source, generation);

-- Latest versions an imported file states, per generation like the advisories.
create table intel_latest_versions (
  source          text not null,
  generation      bigint not null,
  component_type  text not null check (component_type in ('wordpress', 'plugin', 'theme')),
  slug            text not null,
  latest_version  text not null,
  primary key (component_type, slug, source, generation)
);
create index intel_latest_versions_generation_idx on intel_latest_versions (source, generation);

-- WordPress.org's answers, cached with a TTL: the latest version, or why there is none.
create table intel_wporg_versions (
  component_type  text not null check (component_type in ('wordpress', 'plugin', 'theme')),
  slug            text not null,
  latest_version  text,
  reason          text,                      -- when latest_version is null: not_in_directory, closed, lookup_failed
  fetched_at      timestamptz not null,
  expires_at      timestamptz not null,
  primary key (component_type, slug)
);
