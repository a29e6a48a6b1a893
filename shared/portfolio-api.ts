/**
 * The portfolio's shapes (docs/portfolio.md): the account's sites with their latest grade,
 * trend and open vulnerabilities (GET /api/sites, GET /api/sites/{site_id}), and which sites
 * run a component (GET /api/components). Written once as schemas, like shared/api.ts: the
 * server documents with them and clients are typed by them.
 *
 * A site is an account's reports of one normalised site (`site`, the same key GET
 * /api/reports filters by) and one environment; its id (`sit_…`) is derived from those, so it
 * never changes and needs no storage.
 */
import { type Static, Type } from "@sinclair/typebox";
import { ReportListItemSchema } from "./api.ts";
import { COMPONENT_TYPES } from "./diff-schema.ts";
import {
  GradeSchema,
  REPORT_ID_PATTERN,
  ReportStatusSchema,
  VULNERABILITY_DATA_STATUSES,
  VulnerabilitySchema,
} from "./report.ts";
import { Count, Nullable, named, Percent, StringEnum } from "./schema.ts";

export const SITE_ID_PATTERN = "^sit_[0-9a-hjkmnp-tv-z]{26}$";

/** A period of a client report: a calendar month, UTC. */
export const PERIOD_PATTERN = "^[0-9]{4}-(0[1-9]|1[0-2])$";

const siteRefFields = {
  id: Type.String({ pattern: SITE_ID_PATTERN, description: "The site's id: the same for as long as the site exists" }),
  site: Type.String({ description: "Normalised site: host without www., port, path (as GET /api/reports's `site`)" }),
  url: Type.String({ description: "The URL its newest report analyzed" }),
  environment: Nullable(Type.String(), {
    description: "The reports' metadata.environment; null for reports without one",
  }),
};

export const SiteRefSchema = named(
  "SiteRef",
  Type.Object(siteRefFields, { description: "A site: an account's reports of one normalised site and environment" }),
);
export type SiteRef = Static<typeof SiteRefSchema>;

export const ScorePointSchema = named(
  "ScorePoint",
  Type.Object(
    {
      report_id: Type.String({ pattern: REPORT_ID_PATTERN }),
      created_at: Type.String({ format: "date-time" }),
      score: Percent(),
      grade: GradeSchema,
      lab: Type.Optional(
        Nullable(
          Type.Object({
            lcp_ms: Nullable(Type.Number()),
            cls: Type.Number(),
            tbt_ms: Type.Number(),
          }),
          {
            description:
              "In a site's history: the report's Core Web Vitals when it had a complete lab run (performance.lab.metrics), else null. Since 1.5.0.",
          },
        ),
      ),
    },
    { description: "One completed report's score and grade" },
  ),
);
export type ScorePoint = Static<typeof ScorePointSchema>;

export const SeverityCountsSchema = named(
  "SeverityCounts",
  Type.Object(
    {
      total: Count(),
      critical: Count(),
      high: Count(),
      medium: Count(),
      low: Count(),
      info: Count(),
    },
    { description: "How many, by severity" },
  ),
);
export type SeverityCounts = Static<typeof SeverityCountsSchema>;

export const SiteMonitorSchema = named(
  "SiteMonitor",
  Type.Object(
    {
      id: Type.String({ description: "The monitor (mon_…)" }),
      schedule: Type.String({ description: "hourly, daily, weekly or a 5-field cron expression (UTC)" }),
      paused: Type.Boolean(),
      next_run_at: Nullable(Type.String({ format: "date-time" })),
      last_run_at: Nullable(Type.String({ format: "date-time" })),
      last_report_id: Nullable(Type.String()),
    },
    { description: "The scheduled audits of a site (GET /api/monitors); when it has several, the one that runs next" },
  ),
);
export type SiteMonitor = Static<typeof SiteMonitorSchema>;

export const UncheckedRefSchema = named(
  "UncheckedComponentRef",
  Type.Object(
    { type: StringEnum(COMPONENT_TYPES), slug: Type.String({ description: 'Directory name ("wordpress" for core)' }) },
    { description: "A component whose known vulnerabilities no source checked" },
  ),
);

const siteSummaryFields = {
  ...siteRefFields,
  title: Nullable(Type.String(), {
    description: "The homepage's title in the newest completed report (site text: controls removed)",
  }),
  report_count: Count({ description: "Reports of the site, whatever their status" }),
  last_report: Type.Object(
    {
      id: Type.String({ pattern: REPORT_ID_PATTERN }),
      status: ReportStatusSchema,
      created_at: Type.String({ format: "date-time" }),
      incomplete: Type.Boolean({
        description:
          'True when it completed incomplete (the homepage asked for credentials, most probes got no answer…): it has no grade and checked nothing (docs/report.md, "Incomplete reports")',
      }),
    },
    { description: "The newest report, whatever its status" },
  ),
  latest: Nullable(
    Type.Object({
      report_id: Type.String({ pattern: REPORT_ID_PATTERN }),
      completed_at: Nullable(Type.String({ format: "date-time" })),
      score: Percent(),
      grade: GradeSchema,
      failed_checks: SeverityCountsSchema,
      not_checked: Count({
        description:
          "Checks that could not run (a firewall challenge, a persisting 429, a 5xx or a timeout met their probe): neither passed nor failed (summary.not_checked; 0 for reports before schema 1.5.0)",
      }),
    }),
    { description: "The newest completed report's result; null when no report of the site completed" },
  ),
  trend: Type.Array(ScorePointSchema, {
    maxItems: 10,
    description: "The last 10 completed reports, oldest first",
  }),
  score_change: Nullable(Type.Integer(), {
    description: "The newest score minus the oldest of `trend`; null with fewer than two completed reports",
  }),
  vulnerabilities: SeverityCountsSchema,
  vulnerability_data: StringEnum(VULNERABILITY_DATA_STATUSES, {
    description:
      "How far `vulnerabilities` was checked: complete (every component the newest completed report found was checked by a vulnerability source: the counts are the known vulnerabilities); partial (some were not, see vulnerabilities_unchecked: the counts are a floor); none (no source answered, or no report completed: the counts mean nothing, not zero)",
  }),
  vulnerabilities_unchecked: Type.Array(UncheckedRefSchema, {
    description: "The components whose vulnerabilities no source checked (vulnerability_data partial); empty otherwise",
  }),
  monitor: Nullable(SiteMonitorSchema, {
    description: "The site's monitor (scheduled audits), when one watches this URL and environment; null otherwise",
  }),
  links: Type.Object({
    api: Type.String({ format: "uri" }),
    web: Type.String({ format: "uri", description: "The site's page in the web interface" }),
  }),
};

export const SiteSummarySchema = named(
  "SiteSummary",
  Type.Object(siteSummaryFields, {
    description:
      "A site of the portfolio: its newest grade and score, the trend of its last 10 reports and the open vulnerabilities of its newest completed report",
  }),
);
export type SiteSummary = Static<typeof SiteSummarySchema>;

export const SiteListSchema = named(
  "SiteList",
  Type.Object({
    data: Type.Array(SiteSummarySchema, { description: "By site, then environment (alphabetical)" }),
    next_cursor: Nullable(Type.String(), {
      description: "Pass as after= for the next page; null on the last page",
    }),
  }),
);
export type SiteList = Static<typeof SiteListSchema>;

const componentFields = {
  type: StringEnum(COMPONENT_TYPES),
  slug: Type.String({ description: "Directory name (wordpress for core)" }),
  name: Nullable(Type.String(), { description: "As the site names it (site text: controls removed)" }),
  version: Nullable(Type.String(), { description: "The installed version, when the report established it" }),
  latest_version: Nullable(Type.String()),
  outdated: Nullable(Type.Boolean()),
  vulnerabilities: Type.Array(VulnerabilitySchema, {
    description: "Known vulnerabilities of the installed version",
  }),
  vulnerabilities_checked: Type.Boolean({
    description:
      "False when no vulnerability source checked this component for the report: an empty vulnerabilities[] then means unknown, not none",
  }),
};

export const SiteComponentSchema = named(
  "SiteComponent",
  Type.Object(componentFields, { description: "WordPress core, a theme or a plugin the site runs" }),
);
export type SiteComponent = Static<typeof SiteComponentSchema>;

export const OpenVulnerabilitySchema = named(
  "OpenVulnerability",
  Type.Object(
    {
      component: Type.Object({
        type: StringEnum(COMPONENT_TYPES),
        slug: Type.String(),
        name: Nullable(Type.String()),
        version: Nullable(Type.String()),
      }),
      vulnerability: VulnerabilitySchema,
      fix: Type.String({ description: 'What to do, e.g. "update akismet to 5.0.3"' }),
    },
    { description: "A known vulnerability of a component the site runs, with its fix" },
  ),
);
export type OpenVulnerability = Static<typeof OpenVulnerabilitySchema>;

export const SiteDetailSchema = named(
  "SiteDetail",
  Type.Object(
    {
      ...siteSummaryFields,
      history: Type.Array(ScorePointSchema, {
        description: "Score history: the last 100 completed reports, oldest first",
      }),
      reports: Type.Array(ReportListItemSchema, { description: "The 50 newest reports, newest first" }),
      components: Type.Array(SiteComponentSchema, {
        description: "What the newest completed report found: core, themes, plugins",
      }),
      open_vulnerabilities: Type.Array(OpenVulnerabilitySchema, {
        description: "The newest completed report's vulnerabilities, most severe first",
      }),
      client_report_periods: Type.Array(Type.String({ pattern: PERIOD_PATTERN }), {
        description: "Months (YYYY-MM, UTC) with a completed report, newest first: the periods of client reports",
      }),
    },
    { description: "A site with its score history, reports, components and open vulnerabilities" },
  ),
);
export type SiteDetail = Static<typeof SiteDetailSchema>;

export const ComponentSiteSchema = named(
  "ComponentSite",
  Type.Object(
    {
      site: SiteRefSchema,
      report_id: Type.String({ pattern: REPORT_ID_PATTERN, description: "The site's newest completed report" }),
      completed_at: Nullable(Type.String({ format: "date-time" })),
      ...componentFields,
      vulnerable: Type.Boolean({
        description:
          "True when the installed version has known vulnerabilities; false means none known only when vulnerabilities_checked is true",
      }),
    },
    { description: "A site that runs the component, as its newest completed report found it" },
  ),
);
export type ComponentSite = Static<typeof ComponentSiteSchema>;

export const ComponentSitesSchema = named(
  "ComponentSites",
  Type.Object({
    data: Type.Array(ComponentSiteSchema, { description: "By site, then environment (alphabetical)" }),
    next_cursor: Nullable(Type.String(), {
      description: "Pass as after= for the next page; null on the last page",
    }),
  }),
);
export type ComponentSites = Static<typeof ComponentSitesSchema>;
