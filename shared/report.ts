/**
 * The report (schema v1), written once as a schema: the server produces it, the Action and
 * the CLI read it, the diff engine compares two of them. The TypeScript types below are
 * derived from the schemas, and so are the JSON Schema served at /api/schema/report.json and
 * the OpenAPI components (server/platform/http/json-schema.ts): a field added here appears in all of
 * them, with its description.
 *
 * Changes are additive within a major version; a breaking change bumps the major of
 * REPORT_SCHEMA_VERSION (docs/decisions.md, "Report schema versions").
 */
import { type Static, Type } from "@sinclair/typebox";
import { Count, Nullable, named, Percent, StringEnum } from "./schema.ts";

export const REPORT_SCHEMA_VERSION = "1.5.0";

// ── Enumerations ────────────────────────────────────────────────────────────────────────────

export const REPORT_STATUSES = ["queued", "running", "completed", "failed"] as const;
export const ReportStatusSchema = named(
  "ReportStatus",
  StringEnum(REPORT_STATUSES, { description: "Where the analysis stands; only completed reports have results" }),
);
export type ReportStatus = Static<typeof ReportStatusSchema>;

export const ANALYSIS_MODES = ["passive", "aggressive"] as const;
export const AnalysisModeSchema = named(
  "AnalysisMode",
  StringEnum(ANALYSIS_MODES, {
    description:
      '"passive" (default): only what the site shows. "aggressive": also probes a bounded list of plugin and theme slugs the site does not show (docs/enumeration.md)',
  }),
);
export type AnalysisMode = Static<typeof AnalysisModeSchema>;
/**
 * The mode of a request that names none — and of a report, a queued job or saved artifacts
 * from before modes existed. The one default (server/reports/report-options.ts reads requests).
 */
export const DEFAULT_ANALYSIS_MODE: AnalysisMode = "passive";

export const SEVERITIES = ["critical", "high", "medium", "low", "info"] as const;
export const SeveritySchema = named("Severity", StringEnum(SEVERITIES));
export type Severity = Static<typeof SeveritySchema>;

export const CHECK_STATUSES = ["pass", "fail", "warn", "skip", "error"] as const;
export const CheckStatusSchema = named("CheckStatus", StringEnum(CHECK_STATUSES));
export type CheckStatus = Static<typeof CheckStatusSchema>;

export const CHECK_CATEGORIES = ["performance", "seo", "security", "components"] as const;
export const CheckCategorySchema = named("CheckCategory", StringEnum(CHECK_CATEGORIES));
export type CheckCategory = Static<typeof CheckCategorySchema>;

export const GRADES = ["A", "B", "C", "D", "E", "F"] as const;
export const GradeSchema = named("Grade", StringEnum(GRADES));
export type Grade = Static<typeof GradeSchema>;

export const LATEST_VERSION_REASONS = ["not_in_directory", "closed", "lookup_failed", "no_data"] as const;
export const LatestVersionReasonSchema = named(
  "LatestVersionReason",
  StringEnum(LATEST_VERSION_REASONS, {
    description:
      "Why latest_version is null: not_in_directory (not on WordPress.org: premium or custom), closed (closed on WordPress.org), lookup_failed (WordPress.org did not answer in time), no_data (no source knows it, e.g. latest-version lookups are off)",
  }),
);
export type LatestVersionReason = Static<typeof LatestVersionReasonSchema>;

export const STACK_CATEGORIES = [
  "web_server",
  "cdn",
  "hosting",
  "language",
  "framework",
  "cms",
  "site_builder",
  "static_site_generator",
] as const;
export const StackCategorySchema = named("StackCategory", StringEnum(STACK_CATEGORIES));
export type StackCategory = Static<typeof StackCategorySchema>;

// ── Parts ───────────────────────────────────────────────────────────────────────────────────

export const ReportMetadataSchema = named(
  "ReportMetadata",
  Type.Object(
    {
      git_sha: Type.Optional(Type.String({ maxLength: 64, description: "Commit that was deployed" })),
      git_ref: Type.Optional(Type.String({ maxLength: 255, description: "Branch or tag, e.g. refs/heads/main" })),
      environment: Type.Optional(Type.String({ maxLength: 64, description: "e.g. production, staging, pr-42" })),
      ci_run_url: Type.Optional(Type.String({ maxLength: 2048, description: "Link to the CI run that asked" })),
    },
    {
      additionalProperties: false,
      description: "Caller context, stored and returned as given (CI runs use it to find baselines)",
    },
  ),
);
export type ReportMetadata = Static<typeof ReportMetadataSchema>;

export const EvidenceSchema = named(
  "Evidence",
  Type.Object(
    {
      source: Type.String({ description: "A stable token such as meta_generator or rss_generator" }),
      value: Type.String({ description: "The value seen there (site text, length-capped)" }),
      url: Type.Optional(Type.String()),
    },
    { description: "Where a fact was seen" },
  ),
);
export type Evidence = Static<typeof EvidenceSchema>;

export const CheckSchema = named(
  "Check",
  Type.Object({
    id: Type.String({ description: "Stable id, <category>.<name>, listed in the check catalogue (docs/checks.md)" }),
    category: CheckCategorySchema,
    severity: SeveritySchema,
    status: CheckStatusSchema,
    title: Type.String({ description: 'What a pass means, e.g. "Site is served over HTTPS"' }),
    fail_title: Type.Optional(
      Type.String({
        description:
          'What a failure means, e.g. "Site is not served over HTTPS": the title for a failed or warned check (code-scanning alerts use it). Since 1.3.0; absent from earlier reports.',
      }),
    ),
    message: Type.String(),
    evidence: Type.Array(Type.String()),
    remediation: Type.String(),
  }),
);
export type Check = Static<typeof CheckSchema>;

export const ReportErrorSchema = named(
  "ReportError",
  Type.Object(
    {
      stage: Type.String({ description: "What was being done, e.g. homepage, feed" }),
      url: Type.Optional(Type.String()),
      kind: Type.String({ description: "Machine-readable kind: timeout, dns, too_large, blocked, not_wordpress, …" }),
      message: Type.String(),
    },
    { description: "A partial failure: the report was still produced without this part" },
  ),
);
export type ReportError = Static<typeof ReportErrorSchema>;

export const NotCheckedSchema = named(
  "NotChecked",
  Type.Object(
    {
      check: Type.String({ description: "The check's id, as in checks[]" }),
      reason: Type.String({
        description:
          'What the site answered instead, e.g. "A Cloudflare firewall challenge answered /.git/HEAD: not checked"',
      }),
    },
    {
      description:
        "A check that could not run because of what the site answered: its status is skip, never pass. Since 1.5.0.",
    },
  ),
);
export type NotChecked = Static<typeof NotCheckedSchema>;

export const RedirectSchema = named("Redirect", Type.Object({ url: Type.String(), status: Type.Integer() }));
export type Redirect = Static<typeof RedirectSchema>;

export const GradeCapSchema = named(
  "GradeCap",
  Type.Object(
    {
      grade: { ...GradeSchema, description: "The best grade the report can have while these checks fail" },
      severity: SeveritySchema,
      checks: Type.Array(Type.String(), { description: "The failing checks that set this cap" }),
      reason: Type.String(),
    },
    { description: "A limit on the grade set by the worst findings, as SSL Labs and Mozilla Observatory do" },
  ),
);
export type GradeCap = Static<typeof GradeCapSchema>;

const categoryScore = () => Nullable(Percent());

export const SummarySchema = named(
  "Summary",
  Type.Object({
    score: Percent(),
    grade: GradeSchema,
    categories: Type.Object(
      {
        performance: categoryScore(),
        seo: categoryScore(),
        security: categoryScore(),
        components: categoryScore(),
      },
      { description: "Per-category score 0–100, or null when no check of that category ran" },
    ),
    failed: Type.Object(
      { critical: Count(), high: Count(), medium: Count(), low: Count(), info: Count() },
      { description: "Count of failed (fail or warn) checks by severity" },
    ),
    grade_caps: Type.Optional(
      Type.Array(GradeCapSchema, {
        description:
          "Why the grade is lower than the score alone gives: each failed critical check caps it at F, each failed high one at C (docs/scoring.md). Empty when nothing capped it. Since 1.2.0.",
      }),
    ),
    not_checked: Type.Optional(
      Count({
        description:
          "How many checks could not run (what the site answered instead — a firewall challenge or block page, a persistent 429, a server error, a timeout — or a certificate not verified as browsers do): they are skipped, listed in the report's not_checked, and count neither for nor against the score (docs/scoring.md). Since 1.5.0.",
      }),
    ),
  }),
);
export type Summary = Static<typeof SummarySchema>;

export const VulnerabilitySchema = named(
  "Vulnerability",
  Type.Object(
    {
      id: Type.String({
        description: "The source's identifier (a Wordfence Intelligence UUID, or an imported file's id)",
      }),
      title: Type.String(),
      severity: { ...SeveritySchema, description: "From the CVSS rating (None → info); medium when unscored" },
      cvss: Nullable(Type.Number({ minimum: 0, maximum: 10 }), { description: "CVSS base score, null when unscored" }),
      cvss_rating: Type.Optional(
        Nullable(Type.String(), {
          description: "The rating as the source names it (Critical, High, …), null when unscored. Since 1.1.0.",
        }),
      ),
      cvss_vector: Type.Optional(
        Nullable(Type.String(), { description: 'The CVSS vector, e.g. "CVSS:3.1/AV:N/AC:L/…". Since 1.1.0.' }),
      ),
      cve: Type.Array(Type.String()),
      affected: Type.Optional(
        Type.String({
          description:
            'The affected range the installed version falls in, e.g. "<= 5.0.2" or ">= 6.1, < 6.1.10". Since 1.1.0.',
        }),
      ),
      fixed_in: Nullable(Type.String(), {
        description:
          "The version to update to: the first patched release after the installed one; null when unfixed or when the source names no fixed version (see unfixed)",
      }),
      references: Type.Array(Type.String()),
      source: Type.Optional(
        Type.String({
          description:
            "Which intel source reported it (wordfence, wpvulnerability, file): the one whose id, title and scores are shown. Since 1.1.0.",
        }),
      ),
      sources: Type.Optional(
        Type.Array(Type.String(), {
          description:
            "Every intel source that reported this advisory (the same CVE or advisory link from two sources is one entry naming both), `source` first. Since 1.4.0.",
        }),
      ),
      unfixed: Type.Optional(
        Type.Boolean({
          description:
            "True when the source says no fixed release exists. False when one does: fixed_in names it, or is null when the source does not name the version (update to the latest release). Since 1.4.0.",
        }),
      ),
    },
    { description: "A known vulnerability of a component version (docs/intel.md)" },
  ),
);
export type Vulnerability = Static<typeof VulnerabilitySchema>;

export const IntelSourceSchema = named(
  "IntelSource",
  Type.Object(
    {
      id: Type.String({ description: "Stable id: wordfence, wpvulnerability, wordpress.org, file" }),
      name: Type.String(),
      as_of: Nullable(Type.String(), { description: "How current the data is (ISO 8601), null when unknown" }),
      attribution: Nullable(Type.String(), {
        description: "The copyright and licence notices the source's terms require to be shown with its data",
      }),
      url: Nullable(Type.String()),
    },
    { description: "A data source behind the report's latest versions and vulnerabilities" },
  ),
);
export type IntelSource = Static<typeof IntelSourceSchema>;

export const VULNERABILITY_DATA_STATUSES = ["complete", "partial", "none"] as const;

export const UncheckedComponentSchema = named(
  "UncheckedComponent",
  Type.Object(
    {
      type: StringEnum(["core", "theme", "plugin"]),
      slug: Type.String({ description: 'The plugin or theme slug; "wordpress" for core' }),
      reason: Type.String({ description: "Why no vulnerability source checked it, in one sentence" }),
    },
    { description: "A detected component whose known vulnerabilities no source could check for this report" },
  ),
);
export type UncheckedComponent = Static<typeof UncheckedComponentSchema>;

export const VulnerabilityDataSchema = named(
  "VulnerabilityData",
  Type.Object(
    {
      status: StringEnum(VULNERABILITY_DATA_STATUSES, {
        description:
          "complete: every detected component whose vulnerabilities could be looked up was checked by at least one source (trivially when none was detected); partial: some were not (see unchecked); none: no vulnerability source answered, so the *_vulnerable checks are skip and an empty vulnerabilities[] means nothing",
      }),
      message: Nullable(Type.String(), {
        description:
          "The statement readers show when status is not complete (why, and what it means); null when complete",
      }),
      unchecked: Type.Array(UncheckedComponentSchema, {
        description: "The components no vulnerability source checked, with the reason",
      }),
    },
    {
      description:
        "Whether the report's vulnerability lists can be trusted to be complete: which sources answered for the detected components (docs/intel.md). Since 1.4.0.",
    },
  ),
);
export type VulnerabilityData = Static<typeof VulnerabilityDataSchema>;

export const ReportIntelSchema = named(
  "ReportIntel",
  Type.Object(
    {
      sources: Type.Array(IntelSourceSchema),
      vulnerability_data: Type.Optional(VulnerabilityDataSchema),
    },
    { description: "Where the component intelligence of a report came from. Since 1.1.0." },
  ),
);
export type ReportIntel = Static<typeof ReportIntelSchema>;

const latestVersionReason = () =>
  Type.Optional(
    Nullable(LatestVersionReasonSchema, { description: "Null when latest_version is known. Since 1.1.0." }),
  );

export const SiteLayoutSchema = named(
  "SiteLayout",
  Type.Object(
    {
      home_url: Type.String({
        description:
          "WordPress's home URL: the site's front page, REST API, feeds and archives (the URL analyzed when the site does not say)",
      }),
      core_path: Nullable(Type.String(), {
        description:
          "URL path of WordPress core (its siteurl: wp-includes/, wp-admin/, wp-login.php, xmlrpc.php), e.g. /wp/ when WordPress has its own directory; null when nothing showed it (probes then assumed the home)",
      }),
      content_path: Nullable(Type.String(), {
        description:
          "URL path of the content directory on the site's origin, under any name (/wp-content/, /app/); null when nothing showed it (probes then assumed <core>wp-content/)",
      }),
      asset_origins: Type.Array(Type.String(), {
        description:
          "Other origins (a CDN, a static host, a pull zone) serving this site's plugin and theme files: components are read from them, their readme.txt and style.css asked there",
      }),
      evidence: Type.Array(EvidenceSchema, {
        description:
          "How each was found: home_*, core_* and content_* sources (the REST index, the page's own files, a probe answering there), asset_origin for each asset origin",
      }),
    },
    {
      description:
        'Where WordPress lives on the site, as discovered (docs/detection.md, "The install\'s shape"). Probes go there; a check whose probe found nothing at a place not confirmed is skipped. Since 1.4.0.',
    },
  ),
);
export type SiteLayout = Static<typeof SiteLayoutSchema>;

export const WordPressInfoSchema = named(
  "WordPressInfo",
  Type.Object({
    detected: Type.Boolean(),
    confidence: Percent({ description: "How sure we are that the site runs WordPress" }),
    version: Nullable(Type.String(), {
      description: "The core version, or null when no source disclosed a plausible one",
    }),
    version_confidence: Percent({ description: "How sure we are of version" }),
    evidence: Type.Array(EvidenceSchema, { description: "Every place a WordPress signal or version was seen" }),
    rest_api_url: Nullable(Type.String(), { description: "The REST API root, when the site advertises one" }),
    rest_namespaces: Type.Array(Type.String(), {
      description: "REST namespaces the API root lists (e.g. wp/v2, akismet/v1)",
    }),
    content_path: Nullable(Type.String(), {
      description: "URL path of the content directory when it is not the default /wp-content",
    }),
    install_path: Nullable(Type.String(), {
      description:
        "URL path of WordPress's home (/ or a subdirectory such as /blog/); where core is, when it differs, is layout.core_path",
    }),
    layout: Type.Optional(
      Nullable(SiteLayoutSchema, { description: "Null when the site does not look like WordPress. Since 1.4.0." }),
    ),
    multisite: Nullable(Type.Boolean(), { description: "True when multisite hints were seen, null when unknown" }),
    latest_version: Nullable(Type.String(), { description: "Newest release known to the service" }),
    latest_version_reason: latestVersionReason(),
    outdated: Nullable(Type.Boolean(), {
      description: "True when version is older than latest_version; null when either is unknown",
    }),
    vulnerabilities: Type.Array(VulnerabilitySchema),
  }),
);
export type WordPressInfo = Static<typeof WordPressInfoSchema>;

const componentFields = {
  slug: Type.String({ description: "Directory name under themes/ or plugins/ — WordPress.org's slug for public ones" }),
  name: Nullable(Type.String()),
  version: Nullable(Type.String()),
  version_confidence: Percent({ description: "How sure we are of version" }),
  confidence: Percent({ description: "How sure we are that the component is installed and active" }),
  evidence: Type.Array(EvidenceSchema, {
    description: "Where each fact was seen: asset URL, HTML comment, header, REST namespace, readme…",
  }),
  latest_version: Nullable(Type.String()),
  latest_version_reason: latestVersionReason(),
  outdated: Nullable(Type.Boolean()),
  vulnerabilities: Type.Array(VulnerabilitySchema),
  found_by: Type.Optional(
    Type.Literal("aggressive", {
      description:
        "Only aggressive enumeration found it (the site does not show it: installed, maybe inactive); absent when passive detection found it. Since 1.2.0.",
    }),
  ),
};

export const ComponentSchema = named(
  "Component",
  Type.Object(componentFields, { description: "A theme or plugin found on the site" }),
);
export type Component = Static<typeof ComponentSchema>;

export const ThemeInfoSchema = named(
  "ThemeInfo",
  Type.Object({
    ...componentFields,
    author: Nullable(Type.String()),
    parent: Nullable(ComponentSchema, {
      description: "The parent theme when the active theme is a child theme (style.css Template:)",
    }),
  }),
);
export type ThemeInfo = Static<typeof ThemeInfoSchema>;

export const PluginInfoSchema = named(
  "PluginInfo",
  Type.Object({
    ...componentFields,
    category: Nullable(Type.String(), {
      description: "What the plugin is for, from the signature table: seo, cache, security, forms, …",
    }),
  }),
);
export type PluginInfo = Static<typeof PluginInfoSchema>;

export const DisclosedUserSchema = named(
  "DisclosedUser",
  Type.Object(
    {
      id: Nullable(Type.Integer()),
      username: Nullable(Type.String(), { description: "Login name (slug), when disclosed" }),
      display_name: Nullable(Type.String()),
      sources: Type.Array(Type.String(), {
        description: "Where it was seen: rest_api, author_archive, oembed, feed, sitemap",
      }),
    },
    { description: "A user account name the site discloses" },
  ),
);
export type DisclosedUser = Static<typeof DisclosedUserSchema>;

export const StackItemSchema = named(
  "StackItem",
  Type.Object(
    {
      name: Type.String({ description: 'e.g. "nginx", "PHP", "Next.js", "Drupal", "Hugo"' }),
      category: StackCategorySchema,
      version: Nullable(Type.String(), { description: "The version a signal stated, or null" }),
      confidence: Percent({ description: "How sure we are that the site uses it" }),
      evidence: Type.Array(EvidenceSchema, {
        description:
          "Where it was seen: header, cookie (the name only, never its value), meta_generator, script, link, html_comment",
      }),
    },
    { description: "One piece of software seen behind the site. Since 1.2.0." },
  ),
);
export type StackItem = Static<typeof StackItemSchema>;

export const HostingInfoSchema = named(
  "HostingInfo",
  Type.Object({
    server: Nullable(Type.String(), { description: "Web server software (Server header, capped)" }),
    php_version: Nullable(Type.String()),
    cdn: Nullable(Type.String()),
    page_cache: Nullable(Type.String(), {
      description:
        "Page cache in front of WordPress: a plugin (WP Rocket, W3 Total Cache, LiteSpeed Cache) or a proxy (Varnish, Cloudflare…)",
    }),
    page_cache_hit: Nullable(Type.Boolean(), {
      description: "Whether the homepage was served from that cache; null when unknown",
    }),
    waf: Nullable(Type.String(), {
      description: "A web application firewall or bot challenge detected in front of the site",
    }),
    blocked_by_waf: Type.Boolean({
      description:
        "True when the homepage was a WAF challenge page instead of the site (nothing else could be analyzed)",
    }),
    evidence: Type.Array(EvidenceSchema),
    stack: Type.Optional(
      Type.Array(StackItemSchema, {
        description:
          "The software the site runs on, as its headers, cookies and homepage show it: web server, CDN, hosting platform, language, framework, CMS, site builder, static site generator (docs/stack.md). Since 1.2.0.",
      }),
    ),
  }),
);
export type HostingInfo = Static<typeof HostingInfoSchema>;

export const TimingRowSchema = named(
  "TimingRow",
  Type.Object({
    url: Type.String(),
    method: Type.String(),
    status: Nullable(Type.Integer()),
    bytes: Count(),
    transfer_bytes: Nullable(Count()),
    ttfb_ms: Nullable(Type.Number()),
    ms: Type.Number(),
    error: Type.Optional(Type.String()),
  }),
);
export type TimingRow = Static<typeof TimingRowSchema>;

export const ResourceCountSchema = named(
  "ResourceCount",
  Type.Object({
    count: Count(),
    bytes: Count({ description: "Decoded bytes of the ones in the asset sample" }),
    sized: Count({ description: "How many of count had a known size" }),
  }),
);
export type ResourceCount = Static<typeof ResourceCountSchema>;

export const AssetSampleSchema = named(
  "AssetSample",
  Type.Object(
    {
      url: Type.String(),
      type: StringEnum(["script", "style", "image", "font", "other"]),
      status: Nullable(Type.Integer()),
      bytes: Nullable(Count()),
      encoding: Nullable(Type.String(), { description: "Content-Encoding of the response, null when uncompressed" }),
      cache_control: Nullable(Type.String()),
      max_age: Nullable(Type.Integer(), {
        description:
          "Seconds the asset may be cached (max-age / s-maxage / Expires), null when not cacheable or unknown",
      }),
    },
    {
      description:
        "An asset of the site (its origin, or an asset origin serving its plugin and theme files) from the analyzer's sample",
    },
  ),
);
export type AssetSample = Static<typeof AssetSampleSchema>;

// ── Lab: the page loaded in a real browser (docs/report.md, "Lab") ─────────────────────────

export const LAB_DEVICES = ["mobile", "desktop"] as const;
export const LabDeviceSchema = named(
  "LabDevice",
  StringEnum(LAB_DEVICES, {
    description:
      '"mobile" (default): a mid-range phone, Lighthouse\'s mobile emulation. "desktop": a desktop window. Since 1.5.0.',
  }),
);
export type LabDevice = Static<typeof LabDeviceSchema>;
export const DEFAULT_LAB_DEVICE: LabDevice = "mobile";

export const LAB_THROTTLINGS = ["default", "none"] as const;
export const LabThrottlingSchema = named(
  "LabThrottling",
  StringEnum(LAB_THROTTLINGS, {
    description:
      '"default": Lighthouse\'s figures for the device (mobile: 4× CPU slowdown, 150 ms RTT, 1.6 Mbps down, 750 kbps up). "none": no throttling, for CI on a fast network. Since 1.5.0.',
  }),
);
export type LabThrottling = Static<typeof LabThrottlingSchema>;
export const DEFAULT_LAB_THROTTLING: LabThrottling = "default";
/** Loads of the page per lab report (lab_runs): the median is reported, with the spread. */
export const MAX_LAB_RUNS = 5;

export const LabThrottlingUsedSchema = named(
  "LabThrottlingUsed",
  Type.Object(
    {
      cpu_slowdown: Type.Number({ description: "CPU slowdown factor (1: none)" }),
      rtt_ms: Type.Number({ description: "Added round-trip latency per request, ms (0: none)" }),
      download_kbps: Nullable(Type.Number(), { description: "Download throughput cap, kbit/s; null: none" }),
      upload_kbps: Nullable(Type.Number(), { description: "Upload throughput cap, kbit/s; null: none" }),
    },
    { description: "The throttling the lab run applied, in figures. Since 1.5.0." },
  ),
);
export type LabThrottlingUsed = Static<typeof LabThrottlingUsedSchema>;

export const LAB_COMPONENT_KINDS = ["core", "theme", "plugin", "site", "third_party"] as const;
export const LabComponentSchema = named(
  "LabComponent",
  Type.Object(
    {
      kind: StringEnum(LAB_COMPONENT_KINDS, {
        description:
          "core: WordPress's own files; theme or plugin: a component's folder (slug); site: the site's other files; third_party: another origin",
      }),
      slug: Nullable(Type.String(), { description: "The theme's or plugin's slug; null for the other kinds" }),
      origin: Type.String({ description: "The origin the file came from" }),
    },
    { description: "What a file belongs to, from what detection knows of the site. Since 1.5.0." },
  ),
);
export type LabComponent = Static<typeof LabComponentSchema>;

export const LabMetricsSchema = named(
  "LabMetrics",
  Type.Object(
    {
      ttfb_ms: Nullable(Type.Number(), { description: "Time to first byte of the document in the browser, ms" }),
      fcp_ms: Nullable(Type.Number(), { description: "First Contentful Paint, ms" }),
      lcp_ms: Nullable(Type.Number(), { description: "Largest Contentful Paint, ms; null when nothing was painted" }),
      cls: Type.Number({ description: "Cumulative Layout Shift: the largest session window (1 s gap, 5 s cap)" }),
      tbt_ms: Type.Number({
        description: "Total Blocking Time: the part beyond 50 ms of each long task after First Contentful Paint, ms",
      }),
      speed_index_ms: Nullable(Type.Number(), { description: "Speed Index, ms; null: not computed" }),
      requests: Count({ description: "Requests the page made" }),
      transfer_bytes: Count({ description: "Bytes on the wire (headers and bodies) of those requests" }),
    },
    { description: "The lab metrics of a load (the median of the loads when there were several). Since 1.5.0." },
  ),
);
export type LabMetrics = Static<typeof LabMetricsSchema>;

const Spread = Type.Object({ min: Type.Number(), max: Type.Number() });

export const LabSchema = named(
  "Lab",
  Type.Object(
    {
      status: StringEnum(["complete", "failed", "unavailable"], {
        description:
          "complete: the page was loaded and measured; failed: the lab run did not finish (reason says why); unavailable: this service has no browser to run it",
      }),
      reason: Nullable(Type.String(), { description: "Why the lab run failed or was unavailable; null when complete" }),
      device: LabDeviceSchema,
      throttling: LabThrottlingSchema,
      throttling_used: LabThrottlingUsedSchema,
      runs: Type.Integer({ minimum: 1, maximum: MAX_LAB_RUNS, description: "Loads asked for (lab_runs)" }),
      completed_runs: Count({ description: "Loads that finished and were measured" }),
      metrics: Nullable(LabMetricsSchema, { description: "The median of the loads; null unless complete" }),
      spread: Nullable(
        Type.Object({
          fcp_ms: Nullable(Spread),
          lcp_ms: Nullable(Spread),
          cls: Spread,
          tbt_ms: Spread,
        }),
        { description: "The lowest and highest value of each metric across the loads; null unless complete" },
      ),
      lcp_element: Nullable(
        Type.Object({
          selector: Nullable(Type.String(), { description: "A CSS selector of the element" }),
          kind: StringEnum(["image", "text", "video", "background-image", "other"]),
          url: Nullable(Type.String(), { description: "The image's URL, for an image" }),
          component: Nullable(LabComponentSchema),
        }),
        { description: "The element of the Largest Contentful Paint (of the median load)" },
      ),
      layout_shifts: Type.Array(
        Type.Object({
          start_ms: Type.Number(),
          value: Type.Number(),
          elements: Type.Array(Type.String(), { description: "Selectors of the elements that moved" }),
        }),
        { description: "The layout shifts counted in CLS (the largest session window), largest first" },
      ),
      long_tasks: Type.Array(
        Type.Object({
          start_ms: Type.Number(),
          duration_ms: Type.Number(),
          blocking_ms: Type.Number({ description: "What the task adds to TBT" }),
          component: Nullable(LabComponentSchema, {
            description: "The component of the script that ran longest in it",
          }),
          scripts: Type.Array(
            Type.Object({
              url: Type.String(),
              duration_ms: Type.Number(),
              component: Nullable(LabComponentSchema),
            }),
          ),
        }),
        { description: "Main-thread tasks over 50 ms, with the scripts that ran in them, longest first" },
      ),
      render_blocking: Type.Array(
        Type.Object({
          url: Type.String(),
          type: Type.String({ description: "script, style, or what the browser called it" }),
          duration_ms: Type.Number({ description: "How long the file took to load" }),
          component: LabComponentSchema,
        }),
        { description: "Files the browser held the first render for" },
      ),
      components: Type.Array(Type.Object({ component: LabComponentSchema, requests: Count(), bytes: Count() }), {
        description:
          "Bytes on the wire by component (core, the theme, each plugin, the site, each third-party origin), most first",
      }),
      third_party: Type.Array(Type.Object({ origin: Type.String(), requests: Count(), bytes: Count() }), {
        description: "Third-party bytes on the wire by origin, most first",
      }),
      images_without_dimensions: Type.Array(Type.Object({ url: Type.String(), selector: Nullable(Type.String()) }), {
        description: "Images with neither width and height nor an aspect-ratio: each may shift the layout",
      }),
      thumbnail: Nullable(Type.String(), {
        description: "A small JPEG of the viewport once the load settled, as a data: URL",
      }),
      blocked_requests: Type.Object(
        {
          count: Count(),
          examples: Type.Array(Type.Object({ target: Type.String(), reason: Type.String() })),
        },
        { description: "Requests of the page the target policy refused (never made)" },
      ),
    },
    {
      description:
        'The page loaded in a real browser (Chromium), when a lab run was asked for (docs/report.md, "Lab"). Since 1.5.0.',
    },
  ),
);
export type Lab = Static<typeof LabSchema>;

export const PerformanceInfoSchema = named(
  "PerformanceInfo",
  Type.Object({
    ttfb_ms: Nullable(Type.Number(), {
      description:
        "Time to first byte of the homepage, ms: from its request on the wire to the first byte, the connection's set-up not counted, timed while nothing else of the analysis loaded the site",
    }),
    ttfb_samples_ms: Type.Array(Type.Number(), {
      description:
        "The samples ttfb_ms was taken from: the homepage request's own (reports before December 2026: three, ttfb_ms their median)",
    }),
    html_download_ms: Nullable(Type.Number(), {
      description: "Homepage download time (request start → last byte), ms",
    }),
    html_bytes: Nullable(Count(), { description: "Decoded homepage size, bytes" }),
    html_transfer_bytes: Nullable(Count(), {
      description: "Homepage size on the wire when the server declared it, bytes",
    }),
    compression: Nullable(Type.String(), {
      description: "Content-Encoding of the homepage, or null when uncompressed",
    }),
    http_version: Nullable(Type.String(), {
      description:
        'HTTP version the homepage was served with: "2" when the site negotiated HTTP/2 (ALPN, over TLS), else "1.1"; null when unknown',
    }),
    caching: Type.Object({
      cache_control: Nullable(Type.String()),
      expires: Nullable(Type.String()),
      etag: Type.Boolean(),
      last_modified: Type.Boolean(),
      age: Nullable(Type.Number()),
      page_cache: Nullable(Type.String()),
      page_cache_hit: Nullable(Type.Boolean()),
    }),
    resources: Type.Object({
      scripts: ResourceCountSchema,
      styles: ResourceCountSchema,
      images: ResourceCountSchema,
      fonts: ResourceCountSchema,
    }),
    render_blocking: Type.Array(Type.String(), {
      description: "Scripts and stylesheets in <head> that block rendering (no async/defer/module, media=all)",
    }),
    third_party_hosts: Type.Array(Type.String(), {
      description: "Hosts other than the site's own that the homepage loads resources from",
    }),
    images: Type.Object({
      total: Count(),
      lazy: Count(),
      without_dimensions: Count(),
      without_alt: Count(),
    }),
    assets: Type.Array(AssetSampleSchema, {
      description:
        "A bounded sample of the site's assets, on its origin and its asset origins (sizes are decoded bytes)",
    }),
    requests: Type.Array(TimingRowSchema, { description: "One row per request the analyzer made" }),
    lab: Type.Optional(LabSchema),
  }),
);
export type PerformanceInfo = Static<typeof PerformanceInfoSchema>;

export const SeoInfoSchema = named(
  "SeoInfo",
  Type.Object({
    title: Nullable(Type.String()),
    title_length: Count(),
    meta_description: Nullable(Type.String()),
    meta_description_length: Count(),
    canonical: Nullable(Type.String()),
    robots_meta: Nullable(Type.String(), { description: 'Content of <meta name="robots">, null when absent' }),
    x_robots_tag: Nullable(Type.String(), { description: "X-Robots-Tag header, null when absent" }),
    noindex: Type.Boolean({ description: "True when the homepage asks not to be indexed (meta robots or header)" }),
    robots_txt: Type.Object({
      present: Type.Boolean(),
      disallows_all: Type.Boolean({ description: "True when robots.txt disallows the whole site for all crawlers" }),
      sitemaps: Type.Array(Type.String()),
    }),
    sitemaps: Type.Array(
      Type.Object({ url: Type.String(), status: Nullable(Type.Integer()), valid: Type.Boolean(), entries: Count() }),
    ),
    headings: Type.Object({ h1: Type.Array(Type.String()), h2: Count(), h3: Count() }),
    lang: Nullable(Type.String()),
    viewport: Nullable(Type.String()),
    charset: Nullable(Type.String()),
    open_graph: Type.Record(Type.String(), Type.String()),
    twitter_card: Type.Record(Type.String(), Type.String()),
    structured_data_types: Type.Array(Type.String(), {
      description: "schema.org types found in JSON-LD and microdata",
    }),
    hreflang: Type.Array(Type.Object({ lang: Type.String(), url: Type.String() })),
    images_without_alt: Count(),
    seo_plugin: Nullable(Type.String(), {
      description: "The SEO plugin generating the tags, when detected (Yoast SEO, Rank Math, …)",
    }),
  }),
);
export type SeoInfo = Static<typeof SeoInfoSchema>;

export const SecurityHeaderSchema = named(
  "SecurityHeader",
  Type.Object({ name: Type.String(), value: Nullable(Type.String(), { description: "null = missing" }) }),
);
export type SecurityHeader = Static<typeof SecurityHeaderSchema>;

export const ExposedFileSchema = named(
  "ExposedFile",
  Type.Object({
    path: Type.String({ description: "Path probed, e.g. /wp-content/debug.log" }),
    url: Type.String(),
    kind: Type.String({
      description: "debug_log, config_backup, env_file, git, installer, db_dump, backup_dir, emergency, readme, …",
    }),
    status: Type.Integer(),
    evidence: Type.String({ description: "What showed it is real (first bytes, a matching pattern), capped" }),
  }),
);
export type ExposedFile = Static<typeof ExposedFileSchema>;

export const SecurityInfoSchema = named(
  "SecurityInfo",
  Type.Object({
    https: Type.Boolean(),
    tls_verification: Type.Optional(
      StringEnum(["insecure", "private_ca"], {
        description:
          'How the site\'s certificate was checked when the request asked for it (a staging site): "insecure" — not verified (tls: insecure); "private_ca" — verified against the CA given in tls_ca, not the public roots. Absent when it was verified as browsers do. The TLS checks (security.https, security.hsts, security.login_over_https) then skip. Since 1.5.0.',
      }),
    ),
    http_to_https_redirect: Nullable(Type.Boolean(), {
      description: "Whether http:// redirects to https://; null when not tested (site not on HTTPS)",
    }),
    hsts: Nullable(Type.String()),
    headers: Type.Array(SecurityHeaderSchema, {
      description: "The security headers we look for, with their values (null = missing)",
    }),
    cookies: Type.Array(
      Type.Object({
        name: Type.String(),
        secure: Type.Boolean(),
        http_only: Type.Boolean(),
        same_site: Nullable(Type.String()),
      }),
    ),
    version_disclosure: Type.Object({
      generator: Nullable(Type.String()),
      server: Nullable(Type.String()),
      x_powered_by: Nullable(Type.String()),
    }),
    xmlrpc: Type.Object({
      enabled: Type.Boolean({ description: "xmlrpc.php answers as XML-RPC" }),
      methods: Nullable(Count()),
      multicall: Nullable(Type.Boolean()),
      pingback: Nullable(Type.Boolean()),
    }),
    user_enumeration: Type.Object(
      {
        rest_api: Type.Boolean(),
        author_archives: Type.Boolean(),
        oembed: Type.Boolean(),
        sitemap: Type.Optional(
          Type.Boolean({
            description: "Core's users sitemap (wp-sitemap-users-1.xml) lists author archives. Since 1.2.0.",
          }),
        ),
        feed: Type.Optional(Type.Boolean({ description: "Feeds name post authors (display names). Since 1.2.0." })),
      },
      { description: "Which routes disclosed user accounts (users[] has who, and where each was seen)" },
    ),
    users: Type.Array(DisclosedUserSchema),
    exposed_files: Type.Array(ExposedFileSchema),
    directory_listing: Type.Array(Type.String(), {
      description: "Directories that answer with a listing of their files",
    }),
    login: Type.Object({
      url: Nullable(Type.String()),
      reachable: Type.Boolean({ description: "wp-login.php answers with the login form" }),
      over_https: Type.Boolean(),
    }),
  }),
);
export type SecurityInfo = Static<typeof SecurityInfoSchema>;

const enumerationKind = <const Methods extends readonly [string, ...string[]]>(methods: Methods) =>
  Type.Object({
    method: StringEnum(methods, {
      description:
        "How presence was told: directory (a plugin's folder answers 403/200 while a random one answers 404), readme/style_css (that file answers 200), unreliable (the site answers a made-up component like a real one, so nothing was probed)",
    }),
    candidates: Count(),
    vulnerable_candidates: Count({
      description: "How many of the candidates came first because they have known vulnerabilities",
    }),
    probed: Count(),
    found: Type.Array(Type.String(), { description: "Slugs found (already-detected ones are not probed again)" }),
  });

export const EnumerationSummarySchema = named(
  "EnumerationSummary",
  Type.Object(
    {
      budget: Type.Object({ max_requests: Count(), time_budget_ms: Count() }),
      requests: Count({ description: "Requests made, calibration and version reads included" }),
      duration_ms: Count(),
      stopped_by: StringEnum(["finished", "request_budget", "time_budget", "deadline", "site_errors"], {
        description: "Why it stopped: it went through every candidate, or a budget ran out first",
      }),
      plugins: enumerationKind(["directory", "readme", "unreliable"]),
      themes: enumerationKind(["style_css", "unreliable"]),
      version_files: Type.Optional(
        Type.Object(
          {
            plugins: Type.Array(Type.String(), {
              description:
                "Plugins found without a version whose files (readme, changelogs, translation template, package.json, composer.json…) were read for one, before any further slug was probed: those passive detection found, then each one enumeration found",
            }),
            requests: Count({ description: "Requests spent on plugins' files, in all (also counted in `requests`)" }),
            not_read: Type.Array(Type.String(), {
              description:
                "Plugins found without a version whose files were not all read because the enumeration stopped (`stopped_by`): their version may be readable",
            }),
          },
          {
            description:
              "The files of the plugins found, read before enumeration spends its budget on new slugs (docs/enumeration.md). Since 1.5.0.",
          },
        ),
      ),
    },
    { description: "Aggressive enumeration's account of itself (docs/enumeration.md). Since 1.2.0." },
  ),
);
export type EnumerationSummary = Static<typeof EnumerationSummarySchema>;

export const TARGET_LIMITS = ["analyses_at_once", "requests_per_second", "aggressive_requests_per_hour"] as const;

export const TargetLimitsSchema = named(
  "TargetLimits",
  Type.Object(
    {
      host: Type.String({
        description: "The canonical host the limits were counted on: lower case, no trailing dot, no leading www.",
      }),
      hit: Type.Array(StringEnum(TARGET_LIMITS), {
        description:
          "The per-target limits this analysis ran into: analyses_at_once (it waited for another analysis of the same site or address to finish), requests_per_second (some requests waited for the pace), aggressive_requests_per_hour (the enumeration got less than its budget, or none). Empty when none was hit.",
      }),
      waited_ms: Count({ description: "How long it waited for the site's or address's analyses at once" }),
      requests_per_second: Type.Number({
        minimum: 0,
        description: "The pace this analysis's requests kept (its share of the target's requests per second)",
      }),
      aggressive_requests: Nullable(Count(), {
        description: "Requests the target's hourly aggressive budget granted the enumeration; null for passive reports",
      }),
    },
    {
      description:
        "Per-target limits shared by every account and worker (docs/target-policy.md, 'Per-target limits'). Since 1.4.0.",
    },
  ),
);
export type TargetLimits = Static<typeof TargetLimitsSchema>;

// ── The report ──────────────────────────────────────────────────────────────────────────────

export const REPORT_ID_PATTERN = "^rep_[0-9a-z]{26}$";

export const ReportSchema = named(
  "Report",
  Type.Object(
    {
      id: Type.String({ pattern: REPORT_ID_PATTERN, description: "Report id (unguessable)" }),
      schema_version: Type.String({ description: `Semver of the report format; currently ${REPORT_SCHEMA_VERSION}` }),
      status: ReportStatusSchema,
      url: Type.String({ description: "The URL as asked" }),
      final_url: Nullable(Type.String(), { description: "The homepage URL after redirects; null until fetched" }),
      redirects: Type.Array(RedirectSchema),
      created_at: Type.String({ format: "date-time" }),
      completed_at: Nullable(Type.String({ format: "date-time" })),
      duration_ms: Nullable(Count()),
      metadata: ReportMetadataSchema,
      summary: Nullable(SummarySchema, { description: "Null until the analysis completes" }),
      wordpress: Nullable(WordPressInfoSchema),
      theme: Nullable(ThemeInfoSchema, { description: "The active theme; null when not WordPress or not found" }),
      plugins: Type.Array(PluginInfoSchema),
      hosting: Nullable(HostingInfoSchema),
      performance: Nullable(PerformanceInfoSchema),
      seo: Nullable(SeoInfoSchema),
      security: Nullable(SecurityInfoSchema),
      checks: Type.Array(CheckSchema),
      not_checked: Type.Optional(
        Type.Array(NotCheckedSchema, {
          description:
            'The checks that could not run, each with why: what the site answered instead (a firewall challenge or block page, a 429 that persisted after its Retry-After, a server error, a timeout, a homepage that was an error page) or a certificate the request asked not to verify as browsers do (docs/report.md, "Not checked"). They are skip, never pass. Empty when every check ran. Since 1.5.0.',
        }),
      ),
      errors: Type.Array(ReportErrorSchema),
      intel: Type.Optional(
        Nullable(ReportIntelSchema, {
          description:
            "The sources of latest versions and vulnerabilities, with their attribution; null before completion. Since 1.1.0.",
        }),
      ),
      mode: Type.Optional(AnalysisModeSchema),
      enumeration: Type.Optional(
        Nullable(EnumerationSummarySchema, {
          description: "What aggressive enumeration did; null for passive reports",
        }),
      ),
      installed_themes: Type.Optional(
        Type.Array(ComponentSchema, {
          description:
            "Themes installed besides the active one and its parent, which the site does not load: named by an open listing of the themes folder (at most 50), or found by aggressive enumeration (found_by: aggressive). Their code can still be requested directly, so their vulnerabilities are looked up. Since 1.2.0.",
        }),
      ),
      target_limits: Type.Optional(
        Nullable(TargetLimitsSchema, {
          description: "Which per-target limits the analysis ran into; null until it starts. Since 1.4.0.",
        }),
      ),
    },
    { title: "wpreport report", description: "One analysis of one site (schema v1)" },
  ),
);
export type Report = Static<typeof ReportSchema>;
