/**
 * The portfolio's reads of the `reports` table (it writes nothing): an account's sites —
 * reports grouped by normalised site key and environment —, each site's newest and recent
 * completed reports, and the newest completed report of every site for component searches.
 *
 * A site's environment is `coalesce(environment, '')`: reports without one are a site of their
 * own, the one with environment "" (docs/portfolio.md). Sites are ordered by site key, then
 * environment, and paged by keyset on that pair (the ids are hashes, not an order).
 */
import type { Grade, Report, ReportStatus } from "../../shared/report.ts";
import type { Sql } from "../platform/db/database.ts";
import { type ReportListRow, reportListColumns } from "../reports/report-list.ts";

/** A site by its key and environment ("" for reports without one). */
export interface SiteKey {
  siteKey: string;
  environment: string;
}

export interface SiteRow extends SiteKey {
  reportCount: number;
  lastId: string;
  lastStatus: ReportStatus;
  /** The newest report completed without a grade: incomplete. */
  lastIncomplete: boolean;
  lastUrl: string;
  lastCreatedAt: Date;
}

export interface ScoreRow extends SiteKey {
  id: string;
  createdAt: Date;
  completedAt: Date | null;
  score: number;
  grade: Grade;
  /** A lab report's Core Web Vitals (performance.lab.metrics); read only when asked (withLab). */
  lab?: { lcp_ms: number | null; cls: number; tbt_ms: number } | null;
}

/**
 * The parts of a completed report the portfolio reads: summary, title, components, and what it
 * did not check (its status and errors, its vulnerability data, its checks that could not run).
 */
export type ReportParts = Pick<
  Report,
  "id" | "status" | "errors" | "intel" | "summary" | "wordpress" | "theme" | "plugins" | "installed_themes"
> & {
  title: string | null;
  completedAt: Date | null;
  /** How many checks could not run (`not_checked[]`; summary.not_checked says it too). */
  notCheckedCount: number;
};

export interface SiteFilters {
  /** Exact normalised site key. */
  siteKey?: string;
  /** Exact environment; "" selects the reports without one. */
  environment?: string;
  /** Part of the site key, case-insensitive (the web page's search box). */
  search?: string;
  /** Keyset cursor: only sites after this one. */
  after?: SiteKey;
}

/** `"%text%"` for ILIKE, with its wildcards escaped. */
const contains = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export type ComponentType = "core" | "theme" | "plugin";

export class PortfolioStore {
  constructor(private readonly sql: Sql) {}

  /** One page of the account's sites (limit + 1 rows when there is a next page). */
  async sites(accountId: string, filters: SiteFilters, limit: number): Promise<SiteRow[]> {
    const { sql } = this;
    const rows = await sql<
      {
        site_key: string;
        env: string;
        report_count: number;
        last_id: string;
        last_status: ReportStatus;
        last_incomplete: boolean;
        last_url: string;
        last_created_at: Date;
      }[]
    >`
      select site_key, coalesce(environment, '') as env, count(*)::int as report_count,
        (array_agg(id order by created_at desc, id desc))[1] as last_id,
        (array_agg(status order by created_at desc, id desc))[1] as last_status,
        (array_agg(status = 'completed' and grade is null order by created_at desc, id desc))[1] as last_incomplete,
        (array_agg(url order by created_at desc, id desc))[1] as last_url,
        max(created_at) as last_created_at
      from reports
      where account_id = ${accountId}
        ${filters.siteKey !== undefined ? sql`and site_key = ${filters.siteKey}` : sql``}
        ${filters.environment !== undefined ? sql`and coalesce(environment, '') = ${filters.environment}` : sql``}
        ${filters.search ? sql`and site_key ilike ${contains(filters.search)}` : sql``}
        ${
          filters.after
            ? sql`and (site_key, coalesce(environment, '')) > (${filters.after.siteKey}, ${filters.after.environment})`
            : sql``
        }
      group by site_key, coalesce(environment, '')
      order by site_key, env
      limit ${limit}`;
    return rows.map((row) => ({
      siteKey: row.site_key,
      environment: row.env,
      reportCount: row.report_count,
      lastId: row.last_id,
      lastStatus: row.last_status,
      lastIncomplete: row.last_incomplete === true,
      lastUrl: row.last_url,
      lastCreatedAt: row.last_created_at,
    }));
  }

  /** Every site of the account, as keys (to find one by its id). */
  async siteKeys(accountId: string): Promise<SiteKey[]> {
    const rows = await this.sql<{ site_key: string; env: string }[]>`
      select site_key, coalesce(environment, '') as env from reports
      where account_id = ${accountId}
      group by site_key, coalesce(environment, '')`;
    return rows.map((row) => ({ siteKey: row.site_key, environment: row.env }));
  }

  /**
   * The last `perSite` completed reports of each of `sites`, newest first within a site.
   * Reads indexed columns only (no report bodies).
   */
  async recentScores(
    accountId: string,
    sites: SiteKey[],
    perSite: number,
    /** Also read each report's lab metrics from its body (one site's history: the site page). */
    withLab = false,
  ): Promise<ScoreRow[]> {
    if (sites.length === 0) return [];
    const keys = [...new Set(sites.map((site) => site.siteKey))];
    const wanted = new Set(sites.map((site) => `${site.siteKey}\n${site.environment}`));
    const rows = await this.sql<
      {
        site_key: string;
        env: string;
        id: string;
        created_at: Date;
        completed_at: Date | null;
        score: number;
        grade: Grade;
        lab_lcp: string | null;
        lab_cls: string | null;
        lab_tbt: string | null;
      }[]
    >`
      select site_key, env, id, created_at, completed_at, score, grade, lab_lcp, lab_cls, lab_tbt from (
        select site_key, coalesce(environment, '') as env, id, created_at, completed_at, score, grade,
          ${withLab ? this.sql`body #>> '{performance,lab,metrics,lcp_ms}'` : this.sql`null`} as lab_lcp,
          ${withLab ? this.sql`body #>> '{performance,lab,metrics,cls}'` : this.sql`null`} as lab_cls,
          ${withLab ? this.sql`body #>> '{performance,lab,metrics,tbt_ms}'` : this.sql`null`} as lab_tbt,
          row_number() over (
            partition by site_key, coalesce(environment, '') order by created_at desc, id desc
          ) as n
        from reports
        where account_id = ${accountId} and status = 'completed' and score is not null
          and site_key = any(${keys}::text[])
      ) ranked
      where n <= ${perSite}
      order by site_key, env, created_at desc, id desc`;
    return rows
      .filter((row) => wanted.has(`${row.site_key}\n${row.env}`))
      .map((row) => ({
        siteKey: row.site_key,
        environment: row.env,
        id: row.id,
        createdAt: row.created_at,
        completedAt: row.completed_at,
        score: row.score,
        grade: row.grade,
        // A complete lab run always has CLS and TBT; LCP is null when nothing was painted.
        ...(withLab
          ? {
              lab:
                row.lab_cls !== null && row.lab_tbt !== null
                  ? {
                      lcp_ms: row.lab_lcp === null ? null : Number(row.lab_lcp),
                      cls: Number(row.lab_cls),
                      tbt_ms: Number(row.lab_tbt),
                    }
                  : null,
            }
          : {}),
      }));
  }

  /** The summary, homepage title, components and coverage of these (completed) reports, by id. */
  async reportParts(accountId: string, ids: string[]): Promise<Map<string, ReportParts>> {
    if (ids.length === 0) return new Map();
    const rows = await this.sql<
      {
        id: string;
        status: Report["status"];
        errors: Report["errors"] | null;
        intel: Report["intel"] | null;
        not_checked: number | null;
        completed_at: Date | null;
        summary: Report["summary"];
        title: string | null;
        wordpress: Report["wordpress"];
        theme: Report["theme"];
        plugins: Report["plugins"] | null;
        installed_themes: Report["installed_themes"] | null;
      }[]
    >`
      select id, status, completed_at, body -> 'summary' as summary, body -> 'seo' ->> 'title' as title,
        body -> 'errors' as errors, body -> 'intel' as intel,
        case when jsonb_typeof(body -> 'not_checked') = 'array' then jsonb_array_length(body -> 'not_checked') end
          as not_checked,
        body -> 'wordpress' as wordpress, body -> 'theme' as theme, body -> 'plugins' as plugins,
        body -> 'installed_themes' as installed_themes
      from reports
      where account_id = ${accountId} and id = any(${ids}::text[])`;
    return new Map(
      rows.map((row) => [
        row.id,
        {
          id: row.id,
          status: row.status,
          errors: row.errors ?? [],
          intel: row.intel ?? null,
          notCheckedCount: row.summary?.not_checked ?? row.not_checked ?? 0,
          completedAt: row.completed_at,
          summary: row.summary,
          title: row.title,
          wordpress: row.wordpress,
          theme: row.theme,
          plugins: row.plugins ?? [],
          installed_themes: row.installed_themes ?? undefined,
        },
      ]),
    );
  }

  /** The site's newest reports (any status), newest first. */
  async siteReports(accountId: string, site: SiteKey, limit: number): Promise<ReportListRow[]> {
    return this.sql<ReportListRow[]>`
      select ${reportListColumns(this.sql)}
      from reports
      where account_id = ${accountId} and site_key = ${site.siteKey}
        and coalesce(environment, '') = ${site.environment}
      order by created_at desc, id desc
      limit ${limit}`;
  }

  /** The months (YYYY-MM, UTC) in which the site has a completed report, newest first. */
  async months(accountId: string, site: SiteKey): Promise<string[]> {
    const rows = await this.sql<{ month: string }[]>`
      select distinct to_char(created_at at time zone 'UTC', 'YYYY-MM') as month
      from reports
      where account_id = ${accountId} and site_key = ${site.siteKey}
        and coalesce(environment, '') = ${site.environment} and status = 'completed'
      order by month desc`;
    return rows.map((row) => row.month);
  }

  /** The site's completed reports created in [start, end), whole, oldest first. */
  async reportsBetween(accountId: string, site: SiteKey, start: Date, end: Date): Promise<Report[]> {
    const rows = await this.sql<{ body: Report }[]>`
      select body from reports
      where account_id = ${accountId} and site_key = ${site.siteKey}
        and coalesce(environment, '') = ${site.environment} and status = 'completed'
        and created_at >= ${start} and created_at < ${end}
      order by created_at asc, id asc`;
    return rows.map((row) => row.body);
  }

  /** The site's newest completed report before `before`, as a score point (the trend's context). */
  async lastScoreBefore(accountId: string, site: SiteKey, before: Date): Promise<ScoreRow | undefined> {
    const [row] = await this.sql<
      { id: string; created_at: Date; completed_at: Date | null; score: number; grade: Grade }[]
    >`
      select id, created_at, completed_at, score, grade from reports
      where account_id = ${accountId} and site_key = ${site.siteKey}
        and coalesce(environment, '') = ${site.environment} and status = 'completed' and score is not null
        and created_at < ${before}
      order by created_at desc, id desc
      limit 1`;
    return row
      ? {
          ...site,
          id: row.id,
          createdAt: row.created_at,
          completedAt: row.completed_at,
          score: row.score,
          grade: row.grade,
        }
      : undefined;
  }

  /**
   * The sites whose newest completed report has the component (slug compared without case;
   * `type` undefined: plugin or theme, and core for "wordpress"), one page by site key and
   * environment: their newest completed report's id (limit + 1 rows when there is more).
   */
  async sitesWithComponent(
    accountId: string,
    component: { slug: string; type: ComponentType | undefined },
    after: SiteKey | undefined,
    limit: number,
  ): Promise<(SiteKey & { reportId: string; url: string })[]> {
    const { sql } = this;
    const slug = component.slug.toLowerCase();
    const has = (type: ComponentType) => {
      switch (type) {
        case "plugin":
          return sql`exists (select 1 from jsonb_array_elements(coalesce(r.body -> 'plugins', '[]'::jsonb)) p
            where lower(p ->> 'slug') = ${slug})`;
        case "theme":
          return sql`(lower(r.body -> 'theme' ->> 'slug') = ${slug}
            or lower(r.body -> 'theme' -> 'parent' ->> 'slug') = ${slug}
            or exists (select 1 from jsonb_array_elements(coalesce(r.body -> 'installed_themes', '[]'::jsonb)) t
              where lower(t ->> 'slug') = ${slug}))`;
        case "core":
          return slug === "wordpress" ? sql`(r.body -> 'wordpress' ->> 'detected') = 'true'` : sql`false`;
      }
    };
    const condition =
      component.type !== undefined ? has(component.type) : sql`(${has("plugin")} or ${has("theme")} or ${has("core")})`;
    const rows = await sql<{ site_key: string; env: string; id: string; url: string }[]>`
      with latest as (
        select distinct on (site_key, coalesce(environment, ''))
          site_key, coalesce(environment, '') as env, id
        from reports
        where account_id = ${accountId} and status = 'completed'
          ${after ? sql`and (site_key, coalesce(environment, '')) > (${after.siteKey}, ${after.environment})` : sql``}
        order by site_key, coalesce(environment, ''), created_at desc, id desc
      )
      select latest.site_key, latest.env, r.id, r.url
      from latest join reports r on r.id = latest.id
      where ${condition}
      order by latest.site_key, latest.env
      limit ${limit}`;
    return rows.map((row) => ({ siteKey: row.site_key, environment: row.env, reportId: row.id, url: row.url }));
  }
}
