/**
 * The portfolio (docs/portfolio.md): an account's sites with their newest grade and score, the
 * trend of their last 10 reports, their open vulnerabilities and their monitor; one site with
 * its history, reports and components; and which sites run a component. Plain data in and
 * out; the routes (API and web) turn it into responses.
 */
import type {
  ComponentSite,
  ComponentSites,
  ScorePoint,
  SiteDetail,
  SiteList,
  SiteMonitor,
  SiteSummary,
} from "../../shared/portfolio-api.ts";
import type { Summary } from "../../shared/report.ts";
import { vulnerabilityCoverage } from "../../shared/report-coverage.ts";
import { ApiProblem } from "../platform/http/problem.ts";
import { isId, siteId } from "../platform/ids.ts";
import { siteKeyOf } from "../reports/report-history.service.ts";
import { reportListItem } from "../reports/report-list.ts";
import { componentsOf, countBySeverity, emptyCounts, openVulnerabilities, siteText } from "./components.ts";
import type { ComponentType, PortfolioStore, ScoreRow, SiteKey, SiteRow } from "./portfolio.store.ts";

export const DEFAULT_SITES_PAGE = 50;
export const MAX_SITES_PAGE = 100;
/** The CSV export and the web page's download: every site, up to this many. */
export const MAX_EXPORT_SITES = 10_000;
export const TREND_LENGTH = 10;
export const HISTORY_LENGTH = 100;
export const SITE_REPORTS = 50;

/** A site found by its id: its key, environment and id. */
export interface Site extends SiteKey {
  id: string;
}

/**
 * Where `monitor` comes from: the monitors feature (issue 25, item 1) provides this, keyed by
 * site id. Until it is wired in services.ts, no site has a monitor (`monitor: null`).
 */
export interface SiteMonitorSource {
  /** The monitor of each of these sites that has one (when several: the one that runs next), by site id. */
  forSites(accountId: string, sites: Site[]): Promise<Map<string, SiteMonitor>>;
}

export const NO_MONITORS: SiteMonitorSource = { forSites: async () => new Map() };

export interface SiteListQuery {
  url?: string;
  environment?: string;
  search?: string;
  /** A site id: the page starts after it. */
  after?: string;
  limit: number;
}

const iso = (date: Date | null) => (date ? date.toISOString() : null);

function point(row: ScoreRow): ScorePoint {
  const base = { report_id: row.id, created_at: row.createdAt.toISOString(), score: row.score, grade: row.grade };
  return row.lab === undefined ? base : { ...base, lab: row.lab };
}

function failedCounts(summary: Summary | null | undefined) {
  const failed = summary?.failed;
  if (!failed) return emptyCounts();
  const { critical, high, medium, low, info } = failed;
  return { total: critical + high + medium + low + info, critical, high, medium, low, info };
}

export class PortfolioService {
  constructor(
    private readonly store: PortfolioStore,
    private readonly monitors: SiteMonitorSource = NO_MONITORS,
  ) {}

  /** The site's id, for an account. */
  idOf(accountId: string, site: SiteKey): string {
    return siteId(accountId, site.siteKey, site.environment);
  }

  /** The account's site with this id, or undefined (unknown ids and other accounts' sites alike). */
  async find(accountId: string, id: string): Promise<Site | undefined> {
    if (!isId("sit", id)) return undefined;
    for (const site of await this.store.siteKeys(accountId)) {
      if (this.idOf(accountId, site) === id) return { ...site, id };
    }
    return undefined;
  }

  private async cursor(accountId: string, after: string | undefined): Promise<SiteKey | undefined> {
    if (after === undefined) return undefined;
    const site = await this.find(accountId, after);
    if (!site) throw new ApiProblem("invalid_request", "The after cursor is not a site of this account.");
    return site;
  }

  /** One page of sites, by site and environment. */
  async list(accountId: string, query: SiteListQuery, baseUrl: string): Promise<SiteList> {
    const limit = Math.min(Math.max(query.limit, 1), MAX_EXPORT_SITES);
    const rows = await this.store.sites(
      accountId,
      {
        siteKey: query.url !== undefined ? siteKeyOf(query.url) : undefined,
        environment: query.environment,
        search: query.search,
        after: await this.cursor(accountId, query.after),
      },
      limit + 1,
    );
    const page = rows.slice(0, limit);
    const data = await this.summaries(accountId, page, baseUrl);
    return { data, next_cursor: rows.length > limit ? (data.at(-1)?.id ?? null) : null };
  }

  private async summaries(accountId: string, rows: SiteRow[], baseUrl: string): Promise<SiteSummary[]> {
    const sites = rows.map((row) => ({ ...row, id: this.idOf(accountId, row) }));
    const scores = await this.store.recentScores(accountId, sites, TREND_LENGTH);
    const bySite = new Map<string, ScoreRow[]>();
    for (const row of scores) {
      const key = this.idOf(accountId, row);
      bySite.set(key, [...(bySite.get(key) ?? []), row]);
    }
    const latestIds = [...bySite.values()].map((list) => list[0]?.id).filter((id): id is string => id !== undefined);
    const [parts, monitors] = await Promise.all([
      this.store.reportParts(accountId, latestIds),
      this.monitors.forSites(accountId, sites),
    ]);
    return sites.map((site) => {
      const recent = bySite.get(site.id) ?? []; // newest first
      const newest = recent[0];
      const latest = newest ? parts.get(newest.id) : undefined;
      const vulnerabilities = latest ? openVulnerabilities(componentsOf(latest)) : [];
      // No completed report, or one whose vulnerabilities no source checked: the counts mean nothing.
      const coverage = latest ? vulnerabilityCoverage(latest) : { status: "none" as const, unchecked: [] };
      const trend = recent.map(point).reverse();
      const oldest = recent.at(-1);
      return {
        id: site.id,
        site: site.siteKey,
        url: site.lastUrl,
        environment: site.environment === "" ? null : site.environment,
        title: siteText(latest?.title),
        report_count: site.reportCount,
        last_report: {
          id: site.lastId,
          status: site.lastStatus,
          created_at: site.lastCreatedAt.toISOString(),
          incomplete: site.lastIncomplete,
        },
        latest: newest
          ? {
              report_id: newest.id,
              completed_at: iso(newest.completedAt),
              score: newest.score,
              grade: newest.grade,
              failed_checks: failedCounts(latest?.summary),
              not_checked: latest?.notCheckedCount ?? 0,
            }
          : null,
        trend,
        score_change: newest && oldest && recent.length > 1 ? newest.score - oldest.score : null,
        vulnerabilities: countBySeverity(vulnerabilities.map((open) => open.vulnerability.severity)),
        vulnerability_data: coverage.status,
        vulnerabilities_unchecked: coverage.unchecked,
        monitor: monitors.get(site.id) ?? null,
        links: { api: `${baseUrl}/api/sites/${site.id}`, web: `${baseUrl}/sites/${site.id}` },
      } satisfies SiteSummary;
    });
  }

  /** One site with its history, reports, components and open vulnerabilities; undefined when unknown. */
  async get(accountId: string, id: string, baseUrl: string): Promise<SiteDetail | undefined> {
    const site = await this.find(accountId, id);
    if (!site) return undefined;
    const [row] = await this.store.sites(accountId, { siteKey: site.siteKey, environment: site.environment }, 1);
    if (!row) return undefined;
    const [summary] = await this.summaries(accountId, [row], baseUrl);
    if (!summary) return undefined;
    const [history, reports, months] = await Promise.all([
      this.store.recentScores(accountId, [site], HISTORY_LENGTH, true),
      this.store.siteReports(accountId, site, SITE_REPORTS),
      this.store.months(accountId, site),
    ]);
    const latestId = summary.latest?.report_id;
    const parts = latestId ? (await this.store.reportParts(accountId, [latestId])).get(latestId) : undefined;
    const components = parts ? componentsOf(parts) : [];
    return {
      ...summary,
      history: history.map(point).reverse(),
      reports: reports.map(reportListItem),
      components,
      open_vulnerabilities: openVulnerabilities(components),
      client_report_periods: months,
    };
  }

  /** The sites whose newest completed report has the component, with its version and vulnerabilities. */
  async componentSites(
    accountId: string,
    query: { slug: string; type?: ComponentType; after?: string; limit: number },
  ): Promise<ComponentSites> {
    const limit = Math.min(Math.max(query.limit, 1), MAX_EXPORT_SITES);
    const rows = await this.store.sitesWithComponent(
      accountId,
      { slug: query.slug, type: query.type },
      await this.cursor(accountId, query.after),
      limit + 1,
    );
    const page = rows.slice(0, limit);
    const parts = await this.store.reportParts(
      accountId,
      page.map((row) => row.reportId),
    );
    const slug = query.slug.toLowerCase();
    const data: ComponentSite[] = [];
    for (const row of page) {
      const report = parts.get(row.reportId);
      if (!report) continue;
      const id = this.idOf(accountId, row);
      for (const component of componentsOf(report)) {
        if (component.slug.toLowerCase() !== slug) continue;
        if (query.type !== undefined && component.type !== query.type) continue;
        data.push({
          site: {
            id,
            site: row.siteKey,
            url: row.url,
            environment: row.environment === "" ? null : row.environment,
          },
          report_id: row.reportId,
          completed_at: iso(report.completedAt),
          ...component,
          vulnerable: component.vulnerabilities.length > 0,
        });
      }
    }
    const last = page.at(-1);
    return { data, next_cursor: rows.length > limit && last ? this.idOf(accountId, last) : null };
  }
}
