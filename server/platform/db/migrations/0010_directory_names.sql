-- The names index (docs/intel.md, "The names index"): the WordPress.org directory's plugin
-- and theme names, so that a name a site credits ("Powered by Foo Gallery v2.1") maps to the
-- slug it belongs to.
--
-- Like the vulnerability data, each type's entries are written as a *generation* beside the
-- one being served, then the type's `generation` pointer moves in one statement: a report
-- sees the old index or the new one, never half. A failed or killed import leaves rows of a
-- generation nobody reads; the next import of that type deletes them.

create table directory_sources (
  component_type  text primary key check (component_type in ('plugin', 'theme')),
  generation      bigint,                    -- the generation served; null = none yet
  origin          text,                      -- where it came from: wordpress.org, or file
  record_count    integer not null default 0,
  fetched_at      timestamptz,               -- when the served generation was completed
  full_at         timestamptz,               -- when its last complete listing was read (incremental refreshes build on it)
  updated_through timestamptz,               -- the newest last_updated it holds: an incremental refresh reads back to here
  checked_at      timestamptz,               -- the last refresh attempt, an unchanged one included
  last_error      text,                      -- why the last attempt failed; null after a success
  etag            text,                      -- validators of the first listing page (conditional refresh)
  last_modified   text,
  importing_generation bigint,               -- one import of a type at a time (a lease: works on PGlite too)
  import_lease_until   timestamptz
);

create sequence directory_generation_seq;

-- One row per directory entry of a generation.
create table directory_names (
  component_type  text not null check (component_type in ('plugin', 'theme')),
  generation      bigint not null,
  slug            text not null,
  name            text not null,             -- the display name, entities decoded
  installs        integer,                   -- active installs the directory reports; null when unknown
  updated_at      timestamptz,               -- the directory's last_updated
  primary key (component_type, generation, slug)
);
-- A report asks by slug across both types and the served generations.
create index directory_names_slug_idx on directory_names (slug);

-- The keys a name is looked up under (its whole name, its short forms, its first words), normalised as the
-- analyzer normalises what a site writes (server/analyzer/detect/finders/name-keys.ts).
create table directory_name_keys (
  component_type  text not null check (component_type in ('plugin', 'theme')),
  generation      bigint not null,
  key             text not null,
  slug            text not null,
  kind            text not null check (kind in ('full', 'short', 'prefix')),  -- whole name, short form, first words
  primary key (component_type, generation, key, slug)
);
-- A report asks by key (the primary key serves imports and the drop of a generation).
create index directory_name_keys_key_idx on directory_name_keys (key);
