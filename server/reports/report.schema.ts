/**
 * The report as a TypeBox schema: used for the OpenAPI document, served as JSON Schema at
 * /api/schema/report.json, and used by tests to validate every report produced.
 * The type assertions at the bottom fail the type check if it drifts from shared/report.ts.
 */
import { type Static, type TSchema, t } from "elysia";
import type { Report } from "../../shared/report.ts";
import { REPORT_SCHEMA_VERSION } from "../../shared/report.ts";

const Nullable = <T extends TSchema>(schema: T) => t.Union([schema, t.Null()]);

export const SeveritySchema = t.UnionEnum(["critical", "high", "medium", "low", "info"]);
export const CategorySchema = t.UnionEnum(["performance", "seo", "security", "components"]);
export const StatusSchema = t.UnionEnum(["queued", "running", "completed", "failed"]);

export const MetadataSchema = t.Object(
  {
    git_sha: t.Optional(t.String({ maxLength: 64, description: "Commit that was deployed" })),
    git_ref: t.Optional(t.String({ maxLength: 255, description: "Branch or tag, e.g. refs/heads/main" })),
    environment: t.Optional(t.String({ maxLength: 64, description: "e.g. production, staging, pr-42" })),
    ci_run_url: t.Optional(t.String({ maxLength: 2048, description: "Link to the CI run that asked" })),
  },
  { additionalProperties: false, description: "Caller context, stored and returned as given" },
);

const EvidenceSchema = t.Object({
  source: t.String(),
  value: t.String(),
  url: t.Optional(t.String()),
});

export const CheckSchema = t.Object({
  id: t.String({ description: "Stable check id, e.g. security.https" }),
  category: CategorySchema,
  severity: SeveritySchema,
  status: t.UnionEnum(["pass", "fail", "warn", "skip", "error"]),
  title: t.String({ description: 'What a pass means, e.g. "Site is served over HTTPS"' }),
  fail_title: t.Optional(
    t.String({
      description:
        'What a failure means, e.g. "Site is not served over HTTPS": the title for a failed or warned check. Since 1.3.0.',
    }),
  ),
  message: t.String(),
  evidence: t.Array(t.String()),
  remediation: t.String(),
});

const TimingRowSchema = t.Object({
  url: t.String(),
  method: t.String(),
  status: Nullable(t.Integer()),
  bytes: t.Integer(),
  transfer_bytes: Nullable(t.Integer()),
  ttfb_ms: Nullable(t.Number()),
  ms: t.Number(),
  error: t.Optional(t.String()),
});

const categoryScores = t.Object({
  performance: Nullable(t.Integer({ minimum: 0, maximum: 100 })),
  seo: Nullable(t.Integer({ minimum: 0, maximum: 100 })),
  security: Nullable(t.Integer({ minimum: 0, maximum: 100 })),
  components: Nullable(t.Integer({ minimum: 0, maximum: 100 })),
});

export const SummarySchema = t.Object({
  score: t.Integer({ minimum: 0, maximum: 100 }),
  grade: t.UnionEnum(["A", "B", "C", "D", "E", "F"]),
  categories: categoryScores,
  failed: t.Object({
    critical: t.Integer(),
    high: t.Integer(),
    medium: t.Integer(),
    low: t.Integer(),
    info: t.Integer(),
  }),
  grade_caps: t.Optional(
    t.Array(
      t.Object({
        grade: t.UnionEnum(["A", "B", "C", "D", "E", "F"]),
        severity: SeveritySchema,
        checks: t.Array(t.String()),
        reason: t.String(),
      }),
      {
        description: "Why the grade is lower than the score gives: failed critical checks cap it at F, high ones at C",
      },
    ),
  ),
});

const VulnerabilitySchema = t.Object({
  id: t.String(),
  title: t.String(),
  severity: SeveritySchema,
  cvss: Nullable(t.Number({ minimum: 0, maximum: 10 })),
  cvss_rating: t.Optional(
    Nullable(t.String({ description: "As the source names it: Critical, High, Medium, Low, None" })),
  ),
  cvss_vector: t.Optional(Nullable(t.String())),
  cve: t.Array(t.String()),
  affected: t.Optional(t.String({ description: 'The matched range, e.g. "<= 5.0.2" or ">= 6.1, < 6.1.10"' })),
  fixed_in: Nullable(t.String({ description: "The version to update to; null when unfixed" })),
  references: t.Array(t.String()),
  source: t.Optional(t.String({ description: "The intel source that reported it: wordfence, file" })),
});

const LatestVersionReasonSchema = t.Optional(
  Nullable(
    t.UnionEnum(["not_in_directory", "closed", "lookup_failed", "no_data"], {
      description: "Why latest_version is null; null when it is known",
    }),
  ),
);

const IntelSchema = t.Object(
  {
    sources: t.Array(
      t.Object({
        id: t.String({ description: "wordfence, wordpress.org, file" }),
        name: t.String(),
        as_of: Nullable(t.String({ description: "How current the data is (ISO 8601)" })),
        attribution: Nullable(t.String({ description: "Notices the source's terms require with its data" })),
        url: Nullable(t.String()),
      }),
    ),
  },
  { description: "Where latest versions and vulnerabilities came from" },
);

export const WordPressSchema = t.Object({
  detected: t.Boolean(),
  confidence: t.Integer({ minimum: 0, maximum: 100 }),
  version: Nullable(t.String()),
  version_confidence: t.Integer({ minimum: 0, maximum: 100 }),
  evidence: t.Array(EvidenceSchema),
  rest_api_url: Nullable(t.String()),
  rest_namespaces: t.Array(t.String()),
  content_path: Nullable(t.String()),
  install_path: Nullable(t.String()),
  multisite: Nullable(t.Boolean()),
  latest_version: Nullable(t.String()),
  latest_version_reason: LatestVersionReasonSchema,
  outdated: Nullable(t.Boolean()),
  vulnerabilities: t.Array(VulnerabilitySchema),
});

const componentFields = {
  slug: t.String(),
  name: Nullable(t.String()),
  version: Nullable(t.String()),
  version_confidence: t.Integer({ minimum: 0, maximum: 100 }),
  confidence: t.Integer({ minimum: 0, maximum: 100 }),
  evidence: t.Array(EvidenceSchema),
  latest_version: Nullable(t.String()),
  latest_version_reason: LatestVersionReasonSchema,
  outdated: Nullable(t.Boolean()),
  vulnerabilities: t.Array(VulnerabilitySchema),
  found_by: t.Optional(t.Literal("aggressive", { description: "only aggressive enumeration found it (since 1.2.0)" })),
};

const ComponentSchema = t.Object(componentFields);

const enumerationKind = <Method extends TSchema>(method: Method) =>
  t.Object({
    method,
    candidates: t.Integer({ minimum: 0 }),
    vulnerable_candidates: t.Integer({ minimum: 0 }),
    probed: t.Integer({ minimum: 0 }),
    found: t.Array(t.String()),
  });

const EnumerationSchema = t.Object(
  {
    budget: t.Object({ max_requests: t.Integer({ minimum: 0 }), time_budget_ms: t.Integer({ minimum: 0 }) }),
    requests: t.Integer({ minimum: 0 }),
    duration_ms: t.Integer({ minimum: 0 }),
    stopped_by: t.UnionEnum(["finished", "request_budget", "time_budget", "deadline", "site_errors"]),
    plugins: enumerationKind(t.UnionEnum(["directory", "readme", "unreliable"])),
    themes: enumerationKind(t.UnionEnum(["style_css", "unreliable"])),
  },
  { description: "What aggressive enumeration did (since 1.2.0)" },
);

export const ThemeSchema = t.Object({
  ...componentFields,
  author: Nullable(t.String()),
  parent: Nullable(ComponentSchema),
});

export const PluginSchema = t.Object({
  ...componentFields,
  category: Nullable(t.String()),
});

const DisclosedUserSchema = t.Object({
  id: Nullable(t.Integer()),
  username: Nullable(t.String()),
  display_name: Nullable(t.String()),
  sources: t.Array(t.String()),
});

const StackItemSchema = t.Object({
  name: t.String(),
  category: t.UnionEnum([
    "web_server",
    "cdn",
    "hosting",
    "language",
    "framework",
    "cms",
    "site_builder",
    "static_site_generator",
  ]),
  version: Nullable(t.String()),
  confidence: t.Integer({ minimum: 0, maximum: 100 }),
  evidence: t.Array(EvidenceSchema),
});

export const HostingSchema = t.Object({
  server: Nullable(t.String()),
  php_version: Nullable(t.String()),
  cdn: Nullable(t.String()),
  page_cache: Nullable(t.String()),
  page_cache_hit: Nullable(t.Boolean()),
  waf: Nullable(t.String()),
  blocked_by_waf: t.Boolean(),
  evidence: t.Array(EvidenceSchema),
  stack: t.Optional(
    t.Array(StackItemSchema, {
      description: "The software the site runs on: server, CDN, language, framework, CMS… (since 1.2.0)",
    }),
  ),
});

const ResourceCountSchema = t.Object({ count: t.Integer(), bytes: t.Integer(), sized: t.Integer() });

export const PerformanceSchema = t.Object({
  ttfb_ms: Nullable(t.Number()),
  ttfb_samples_ms: t.Array(t.Number()),
  html_download_ms: Nullable(t.Number()),
  html_bytes: Nullable(t.Integer()),
  html_transfer_bytes: Nullable(t.Integer()),
  compression: Nullable(t.String()),
  http_version: Nullable(t.String()),
  caching: t.Object({
    cache_control: Nullable(t.String()),
    expires: Nullable(t.String()),
    etag: t.Boolean(),
    last_modified: t.Boolean(),
    age: Nullable(t.Number()),
    page_cache: Nullable(t.String()),
    page_cache_hit: Nullable(t.Boolean()),
  }),
  resources: t.Object({
    scripts: ResourceCountSchema,
    styles: ResourceCountSchema,
    images: ResourceCountSchema,
    fonts: ResourceCountSchema,
  }),
  render_blocking: t.Array(t.String()),
  third_party_hosts: t.Array(t.String()),
  images: t.Object({
    total: t.Integer(),
    lazy: t.Integer(),
    without_dimensions: t.Integer(),
    without_alt: t.Integer(),
  }),
  assets: t.Array(
    t.Object({
      url: t.String(),
      type: t.UnionEnum(["script", "style", "image", "font", "other"]),
      status: Nullable(t.Integer()),
      bytes: Nullable(t.Integer()),
      encoding: Nullable(t.String()),
      cache_control: Nullable(t.String()),
      max_age: Nullable(t.Integer()),
    }),
  ),
  requests: t.Array(TimingRowSchema),
});

export const SeoSchema = t.Object({
  title: Nullable(t.String()),
  title_length: t.Integer(),
  meta_description: Nullable(t.String()),
  meta_description_length: t.Integer(),
  canonical: Nullable(t.String()),
  robots_meta: Nullable(t.String()),
  x_robots_tag: Nullable(t.String()),
  noindex: t.Boolean(),
  robots_txt: t.Object({ present: t.Boolean(), disallows_all: t.Boolean(), sitemaps: t.Array(t.String()) }),
  sitemaps: t.Array(
    t.Object({ url: t.String(), status: Nullable(t.Integer()), valid: t.Boolean(), entries: t.Integer() }),
  ),
  headings: t.Object({ h1: t.Array(t.String()), h2: t.Integer(), h3: t.Integer() }),
  lang: Nullable(t.String()),
  viewport: Nullable(t.String()),
  charset: Nullable(t.String()),
  open_graph: t.Record(t.String(), t.String()),
  twitter_card: t.Record(t.String(), t.String()),
  structured_data_types: t.Array(t.String()),
  hreflang: t.Array(t.Object({ lang: t.String(), url: t.String() })),
  images_without_alt: t.Integer(),
  seo_plugin: Nullable(t.String()),
});

export const SecuritySchema = t.Object({
  https: t.Boolean(),
  http_to_https_redirect: Nullable(t.Boolean()),
  hsts: Nullable(t.String()),
  headers: t.Array(t.Object({ name: t.String(), value: Nullable(t.String()) })),
  cookies: t.Array(
    t.Object({ name: t.String(), secure: t.Boolean(), http_only: t.Boolean(), same_site: Nullable(t.String()) }),
  ),
  version_disclosure: t.Object({
    generator: Nullable(t.String()),
    server: Nullable(t.String()),
    x_powered_by: Nullable(t.String()),
  }),
  xmlrpc: t.Object({
    enabled: t.Boolean(),
    methods: Nullable(t.Integer()),
    multicall: Nullable(t.Boolean()),
    pingback: Nullable(t.Boolean()),
  }),
  user_enumeration: t.Object({
    rest_api: t.Boolean(),
    author_archives: t.Boolean(),
    oembed: t.Boolean(),
    sitemap: t.Optional(t.Boolean({ description: "core's users sitemap lists author archives (since 1.2.0)" })),
    feed: t.Optional(t.Boolean({ description: "feeds name post authors (since 1.2.0)" })),
  }),
  users: t.Array(DisclosedUserSchema),
  exposed_files: t.Array(
    t.Object({ path: t.String(), url: t.String(), kind: t.String(), status: t.Integer(), evidence: t.String() }),
  ),
  directory_listing: t.Array(t.String()),
  login: t.Object({ url: Nullable(t.String()), reachable: t.Boolean(), over_https: t.Boolean() }),
});

export const ReportSchema = t.Object(
  {
    id: t.String({ pattern: "^rep_[0-9a-z]{26}$", description: "Report id (unguessable)" }),
    schema_version: t.String({ description: `Semver of the report format; currently ${REPORT_SCHEMA_VERSION}` }),
    status: StatusSchema,
    url: t.String({ description: "The URL as asked" }),
    final_url: Nullable(t.String({ description: "Homepage URL after redirects" })),
    redirects: t.Array(t.Object({ url: t.String(), status: t.Integer() })),
    created_at: t.String({ format: "date-time" }),
    completed_at: Nullable(t.String({ format: "date-time" })),
    duration_ms: Nullable(t.Integer()),
    metadata: MetadataSchema,
    summary: Nullable(SummarySchema),
    wordpress: Nullable(WordPressSchema),
    theme: Nullable(ThemeSchema),
    plugins: t.Array(PluginSchema),
    hosting: Nullable(HostingSchema),
    performance: Nullable(PerformanceSchema),
    seo: Nullable(SeoSchema),
    security: Nullable(SecuritySchema),
    checks: t.Array(CheckSchema),
    errors: t.Array(
      t.Object({
        stage: t.String(),
        url: t.Optional(t.String()),
        kind: t.String(),
        message: t.String(),
      }),
    ),
    intel: t.Optional(Nullable(IntelSchema)),
    mode: t.Optional(t.UnionEnum(["passive", "aggressive"])),
    enumeration: t.Optional(Nullable(EnumerationSchema)),
    installed_themes: t.Optional(t.Array(ComponentSchema)),
  },
  {
    $id: "https://wpreport.dev/schema/report-v1.json",
    title: "wpreport report",
    description: "One analysis of one site (schema v1)",
  },
);

// Compile-time guarantee that schema and shared types agree in both directions.
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type SchemaReport = Static<typeof ReportSchema>;
const assignableOneWay: Report = {} as SchemaReport;
const assignableOtherWay: SchemaReport = {} as Report;
void assignableOneWay;
void assignableOtherWay;
export type _ReportSchemaMatches = Equal<keyof SchemaReport, keyof Report>;
