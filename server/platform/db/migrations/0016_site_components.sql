-- vulnerability.found without a crawl (issue 25, docs/monitoring.md#vulnerabilityfound): the
-- components of each site's latest completed report, which a new advisory is matched against,
-- and the (site, component, advisory) pairs already told, so that nothing is told twice.
--
-- A site is an account's normalised site key and environment ('' for reports without one), as
-- the portfolio groups reports. Monitoring writes both tables (server/monitoring/vulnerabilities/).

create table site_components (
  account_id        text not null references accounts (id) on delete cascade,
  site_key          text not null,
  environment       text not null,                -- '' when the report has none
  url               text not null,                -- the latest report's URL
  report_id         text not null,                -- the site's latest completed report
  report_created_at timestamptz not null,
  monitor_id        text,                         -- that report's monitor, if a monitor made it
  component_type    text not null check (component_type in ('core', 'plugin', 'theme')),
  slug              text not null,
  name              text,
  version           text,
  -- Advisory ids and CVEs the report already listed for the component: not news to the site.
  known_advisories  text[] not null default '{}',
  primary key (account_id, site_key, environment, component_type, slug)
);
create index site_components_component_idx on site_components (component_type, slug);

create table vulnerability_notices (
  account_id     text not null references accounts (id) on delete cascade,
  site_key       text not null,
  environment    text not null,
  component_type text not null,
  slug           text not null,
  advisory_id    text not null,
  source         text not null,
  event_id       text not null,
  created_at     timestamptz not null default now(),
  primary key (account_id, site_key, environment, component_type, slug, advisory_id)
);

-- Backfill: the latest completed report of every existing site. No event is emitted for it:
-- events come only from advisories an import adds later.
insert into site_components
  (account_id, site_key, environment, url, report_id, report_created_at, monitor_id,
   component_type, slug, name, version, known_advisories)
select r.account_id, r.site_key, r.env, r.url, r.id, r.created_at, r.monitor_id,
  c.component_type, c.slug, c.name, c.version,
  array(
    select v ->> 'id' from jsonb_array_elements(c.vulnerabilities) v
    union
    select cve.value from jsonb_array_elements(c.vulnerabilities) v,
      jsonb_array_elements_text(case when jsonb_typeof(v -> 'cve') = 'array' then v -> 'cve' else '[]'::jsonb end) cve
  )
from (
  select distinct on (account_id, site_key, coalesce(environment, ''))
    id, account_id, site_key, coalesce(environment, '') as env, url, created_at, monitor_id, body
  from reports
  where status = 'completed'
  order by account_id, site_key, coalesce(environment, ''), created_at desc, id desc
) r
cross join lateral (
  select x.n, x.component_type, lower(x.slug) as slug, x.name, x.version,
    case when jsonb_typeof(x.component -> 'vulnerabilities') = 'array' then x.component -> 'vulnerabilities'
      else '[]'::jsonb end as vulnerabilities
  from (
    -- In the order the service lists components (server/monitoring/vulnerabilities/site-components.ts): the first of a type and slug wins.
    select 0::bigint as n, 'core' as component_type, 'wordpress' as slug, 'WordPress' as name,
      r.body -> 'wordpress' ->> 'version' as version, r.body -> 'wordpress' as component
    where jsonb_typeof(r.body -> 'wordpress') = 'object' and (r.body -> 'wordpress' ->> 'detected') = 'true'
    union all
    select 1, 'theme', r.body -> 'theme' ->> 'slug', r.body -> 'theme' ->> 'name', r.body -> 'theme' ->> 'version',
      r.body -> 'theme'
    where jsonb_typeof(r.body -> 'theme') = 'object'
    union all
    select 2, 'theme', r.body -> 'theme' -> 'parent' ->> 'slug', r.body -> 'theme' -> 'parent' ->> 'name',
      r.body -> 'theme' -> 'parent' ->> 'version', r.body -> 'theme' -> 'parent'
    where jsonb_typeof(r.body -> 'theme' -> 'parent') = 'object'
    union all
    select 2 + t.n, 'theme', t.value ->> 'slug', t.value ->> 'name', t.value ->> 'version', t.value
    from jsonb_array_elements(
      case when jsonb_typeof(r.body -> 'installed_themes') = 'array' then r.body -> 'installed_themes' else '[]'::jsonb end
    ) with ordinality as t (value, n)
    union all
    select 1000000 + p.n, 'plugin', p.value ->> 'slug', p.value ->> 'name', p.value ->> 'version', p.value
    from jsonb_array_elements(
      case when jsonb_typeof(r.body -> 'plugins') = 'array' then r.body -> 'plugins' else '[]'::jsonb end
    ) with ordinality as p (value, n)
  ) x
  where x.slug is not null
) c
order by r.account_id, r.site_key, r.env, c.n
on conflict do nothing;
