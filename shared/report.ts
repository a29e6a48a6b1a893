/**
 * The report (schema v1) — the types every part shares: the server produces it, the
 * Action and the CLI read it, the diff engine compares two of them.
 *
 * Changes are additive within a major version; a breaking change bumps the major of
 * REPORT_SCHEMA_VERSION (SPEC.md §4 "Versioning"). The JSON Schema served at
 * /api/schema/report.json is generated from the TypeBox schema in server/reports and is
 * checked against these types by the type checker.
 */
export const REPORT_SCHEMA_VERSION = "1.3.0";

export type ReportStatus = "queued" | "running" | "completed" | "failed";

/** "passive" (default): only what the site shows. "aggressive": plus opt-in enumeration. */
export type AnalysisMode = "passive" | "aggressive";
export const ANALYSIS_MODES: readonly AnalysisMode[] = ["passive", "aggressive"];
export type Severity = "critical" | "high" | "medium" | "low" | "info";
export type CheckStatus = "pass" | "fail" | "warn" | "skip" | "error";
export type CheckCategory = "performance" | "seo" | "security" | "components";

export const SEVERITIES: readonly Severity[] = ["critical", "high", "medium", "low", "info"];
export const CHECK_CATEGORIES: readonly CheckCategory[] = ["performance", "seo", "security", "components"];

/** Caller-supplied context stored with the report (CI runs use it to find baselines). */
export interface ReportMetadata {
  git_sha?: string;
  git_ref?: string;
  environment?: string;
  ci_run_url?: string;
}

/** Where a fact was seen. `source` is a stable token such as `meta_generator` or `rss_generator`. */
export interface Evidence {
  source: string;
  /** The value seen there (site text, length-capped). */
  value: string;
  url?: string;
}

export interface Check {
  /** Stable id, `<category>.<name>`, listed in the check catalogue (docs/checks.md). */
  id: string;
  category: CheckCategory;
  severity: Severity;
  status: CheckStatus;
  /** What a pass means ("Site is served over HTTPS"). */
  title: string;
  /**
   * What a failure means ("Site is not served over HTTPS"): the title for a failed or warned
   * check (code-scanning alerts use it). Since 1.3.0; absent from earlier reports.
   */
  fail_title?: string;
  message: string;
  evidence: string[];
  remediation: string;
}

/** A partial failure: the report was still produced without this part. */
export interface ReportError {
  /** What was being done, e.g. `homepage`, `feed`. */
  stage: string;
  url?: string;
  /** Machine-readable kind: `timeout`, `dns`, `too_large`, `blocked`, … */
  kind: string;
  message: string;
}

export interface Redirect {
  url: string;
  status: number;
}

export interface Summary {
  score: number;
  grade: "A" | "B" | "C" | "D" | "E" | "F";
  /** Per-category score 0–100, or null when no check of that category ran. */
  categories: Record<CheckCategory, number | null>;
  /** Count of failed (fail or warn) checks by severity. */
  failed: Record<Severity, number>;
  /**
   * Why the grade is lower than the score alone would give: each failed critical check caps
   * the grade at F, each failed high one at C (docs/scoring.md). Empty when nothing capped
   * it. Since 1.2.0.
   */
  grade_caps?: GradeCap[];
}

/** A limit on the grade set by the worst findings, as SSL Labs and Mozilla Observatory do. */
export interface GradeCap {
  /** The best grade the report can have while these checks fail. */
  grade: Summary["grade"];
  severity: Severity;
  /** The failing checks that set this cap. */
  checks: string[];
  reason: string;
}

/** A known vulnerability of a component version (from the component intelligence, docs/intel.md). */
export interface Vulnerability {
  /** The source's identifier (a Wordfence Intelligence UUID, or an imported file's id). */
  id: string;
  title: string;
  /** From the CVSS rating (critical/high/medium/low; "None" → info); medium when unscored. */
  severity: Severity;
  /** CVSS base score 0–10, null when unscored. */
  cvss: number | null;
  /** The rating as the source names it ("Critical", "High", …), null when unscored. Since 1.1.0. */
  cvss_rating?: string | null;
  /** The CVSS vector, e.g. "CVSS:3.1/AV:N/AC:L/…", null when not given. Since 1.1.0. */
  cvss_vector?: string | null;
  cve: string[];
  /** The affected range the installed version falls in, e.g. "<= 5.0.2" or ">= 6.1, < 6.1.10". Since 1.1.0. */
  affected?: string;
  /** The version to update to: the first patched release after the installed one; null when unfixed. */
  fixed_in: string | null;
  references: string[];
  /** Which intel source reported it (`wordfence`, `file`). Since 1.1.0. */
  source?: string;
}

/**
 * Why `latest_version` is null: `not_in_directory` (not on WordPress.org: premium or custom),
 * `closed` (closed on WordPress.org), `lookup_failed` (WordPress.org did not answer in time),
 * `no_data` (no source knows it, e.g. latest-version lookups are off).
 */
export type LatestVersionReason = "not_in_directory" | "closed" | "lookup_failed" | "no_data";
export const LATEST_VERSION_REASONS: readonly LatestVersionReason[] = [
  "not_in_directory",
  "closed",
  "lookup_failed",
  "no_data",
];

/** A data source behind the report's latest versions and vulnerabilities. */
export interface IntelSource {
  /** Stable id: `wordfence`, `wordpress.org`, `file`. */
  id: string;
  name: string;
  /** How current the data is (ISO 8601), null when unknown. */
  as_of: string | null;
  /** The copyright and licence notices the source's terms require to be shown with its data. */
  attribution: string | null;
  url: string | null;
}

/** Where the component intelligence of a report came from. Since 1.1.0. */
export interface ReportIntel {
  sources: IntelSource[];
}

export interface WordPressInfo {
  detected: boolean;
  /** 0–100: how sure we are that the site runs WordPress. */
  confidence: number;
  /** The core version, or null when no source disclosed a plausible one. */
  version: string | null;
  /** 0–100: how sure we are of `version`. */
  version_confidence: number;
  /** Every place a WordPress signal or version was seen. */
  evidence: Evidence[];
  /** The REST API root, when the site advertises one. */
  rest_api_url: string | null;
  /** REST namespaces the API root lists (e.g. `wp/v2`, `akismet/v1`). */
  rest_namespaces: string[];
  /** URL path of the content directory when it is not the default `/wp-content`. */
  content_path: string | null;
  /** URL path WordPress is installed under (`/` or a subdirectory such as `/blog/`). */
  install_path: string | null;
  /** True when multisite hints were seen, null when unknown. */
  multisite: boolean | null;
  /** Newest release known to the service, when it knows one. */
  latest_version: string | null;
  /** Why latest_version is null (null when it is known). Since 1.1.0. */
  latest_version_reason?: LatestVersionReason | null;
  /** True when `version` is older than `latest_version`; null when either is unknown. */
  outdated: boolean | null;
  vulnerabilities: Vulnerability[];
}

/** A theme or plugin found on the site. */
export interface Component {
  /** Directory name under themes/ or plugins/ — WordPress.org's slug for public ones. */
  slug: string;
  name: string | null;
  version: string | null;
  /** 0–100: how sure we are of `version`. */
  version_confidence: number;
  /** 0–100: how sure we are that the component is installed and active. */
  confidence: number;
  /** Where each fact was seen: asset URL, HTML comment, header, REST namespace, readme… */
  evidence: Evidence[];
  latest_version: string | null;
  /** Why latest_version is null (null when it is known). Since 1.1.0. */
  latest_version_reason?: LatestVersionReason | null;
  outdated: boolean | null;
  vulnerabilities: Vulnerability[];
  /**
   * "aggressive" when only aggressive enumeration found it (the site does not show it: it is
   * installed, maybe inactive); absent when passive detection found it. Since 1.2.0.
   */
  found_by?: "aggressive";
}

export interface ThemeInfo extends Component {
  author: string | null;
  /** The parent theme when the active theme is a child theme (style.css `Template:`). */
  parent: Component | null;
}

export interface PluginInfo extends Component {
  /** What the plugin is for, from the signature table: `seo`, `cache`, `security`, `forms`, … */
  category: string | null;
}

/** A user account name the site discloses. */
export interface DisclosedUser {
  id: number | null;
  /** Login name (slug), when disclosed. */
  username: string | null;
  display_name: string | null;
  /** Where it was seen: `rest_api`, `author_archive`, `oembed`, `feed`, `sitemap`. */
  sources: string[];
}

export interface HostingInfo {
  /** Web server software (Server header, capped). */
  server: string | null;
  php_version: string | null;
  cdn: string | null;
  /** Page cache in front of WordPress: a plugin (WP Rocket, W3 Total Cache, LiteSpeed Cache) or a proxy (Varnish, Cloudflare…). */
  page_cache: string | null;
  /** Whether the homepage was served from that cache; null when unknown. */
  page_cache_hit: boolean | null;
  /** A web application firewall or bot challenge detected in front of the site. */
  waf: string | null;
  /** True when the homepage was a WAF challenge page instead of the site (nothing else could be analysed). */
  blocked_by_waf: boolean;
  evidence: Evidence[];
  /**
   * The software the site runs on, as its headers, cookies and homepage show it: web server,
   * CDN, hosting platform, language, framework, CMS, site builder, static site generator
   * (detect/stack.ts, docs/stack.md). Reported for every site; on a site that is not
   * WordPress it is what the report can say instead. Since 1.2.0.
   */
  stack?: StackItem[];
}

/** What a piece of the stack is. */
export type StackCategory =
  | "web_server"
  | "cdn"
  | "hosting"
  | "language"
  | "framework"
  | "cms"
  | "site_builder"
  | "static_site_generator";
export const STACK_CATEGORIES: readonly StackCategory[] = [
  "web_server",
  "cdn",
  "hosting",
  "language",
  "framework",
  "cms",
  "site_builder",
  "static_site_generator",
];

/** One piece of software seen behind the site. Since 1.2.0. */
export interface StackItem {
  /** e.g. "nginx", "PHP", "Next.js", "Drupal", "Hugo". */
  name: string;
  category: StackCategory;
  /** The version a signal stated, or null. */
  version: string | null;
  /** 0–100: how sure we are that the site uses it. */
  confidence: number;
  /** Where it was seen: `header`, `cookie` (the name only, never its value), `meta_generator`, `script`, `link`, `html_comment`. */
  evidence: Evidence[];
}

export interface TimingRow {
  url: string;
  method: string;
  status: number | null;
  bytes: number;
  transfer_bytes: number | null;
  ttfb_ms: number | null;
  ms: number;
  error?: string;
}

export interface ResourceCount {
  count: number;
  /** Decoded bytes of the ones in the asset sample. */
  bytes: number;
  /** How many of `count` had a known size. */
  sized: number;
}

/** A same-site asset from the analyzer's sample. */
export interface AssetSample {
  url: string;
  type: "script" | "style" | "image" | "font" | "other";
  status: number | null;
  bytes: number | null;
  /** Content-Encoding of the response, null when uncompressed. */
  encoding: string | null;
  cache_control: string | null;
  /** Seconds the asset may be cached (max-age / s-maxage / Expires), null when not cacheable or unknown. */
  max_age: number | null;
}

export interface PerformanceInfo {
  /** Time to first byte of the homepage, median of the samples taken. */
  ttfb_ms: number | null;
  ttfb_samples_ms: number[];
  /** Homepage download time (request start → last byte), ms. */
  html_download_ms: number | null;
  /** Decoded homepage size, bytes. */
  html_bytes: number | null;
  /** Homepage size on the wire when the server declared it, bytes. */
  html_transfer_bytes: number | null;
  /** Content-Encoding of the homepage, or null when uncompressed. */
  compression: string | null;
  /**
   * HTTP version the homepage was served with: "2" when the site negotiated HTTP/2 (ALPN, over
   * TLS), else "1.1"; null when unknown. (Before HTTP/2 support every report said "1.1".)
   */
  http_version: string | null;
  caching: {
    cache_control: string | null;
    expires: string | null;
    etag: boolean;
    last_modified: boolean;
    age: number | null;
    page_cache: string | null;
    page_cache_hit: boolean | null;
  };
  resources: {
    scripts: ResourceCount;
    styles: ResourceCount;
    images: ResourceCount;
    fonts: ResourceCount;
  };
  /** Scripts and stylesheets in <head> that block rendering (no async/defer/module, media=all). */
  render_blocking: string[];
  /** Hosts other than the site's own that the homepage loads resources from. */
  third_party_hosts: string[];
  images: {
    total: number;
    lazy: number;
    without_dimensions: number;
    without_alt: number;
  };
  /** A bounded sample of same-site assets (sizes are decoded bytes). */
  assets: AssetSample[];
  /** One row per request the analyzer made. */
  requests: TimingRow[];
}

export interface SeoInfo {
  title: string | null;
  title_length: number;
  meta_description: string | null;
  meta_description_length: number;
  canonical: string | null;
  /** Content of <meta name="robots">, null when absent. */
  robots_meta: string | null;
  /** X-Robots-Tag header, null when absent. */
  x_robots_tag: string | null;
  /** True when the homepage asks not to be indexed (meta robots or header). */
  noindex: boolean;
  robots_txt: {
    present: boolean;
    /** True when robots.txt disallows the whole site for all crawlers. */
    disallows_all: boolean;
    sitemaps: string[];
  };
  sitemaps: { url: string; status: number | null; valid: boolean; entries: number }[];
  headings: { h1: string[]; h2: number; h3: number };
  lang: string | null;
  viewport: string | null;
  charset: string | null;
  open_graph: Record<string, string>;
  twitter_card: Record<string, string>;
  /** schema.org types found in JSON-LD and microdata. */
  structured_data_types: string[];
  hreflang: { lang: string; url: string }[];
  images_without_alt: number;
  /** The SEO plugin generating the tags, when detected (Yoast SEO, Rank Math, …). */
  seo_plugin: string | null;
}

export interface SecurityHeader {
  name: string;
  value: string | null;
}

export interface ExposedFile {
  /** Path probed, e.g. `/wp-content/debug.log`. */
  path: string;
  url: string;
  /** `debug_log`, `config_backup`, `env_file`, `git`, `installer`, `db_dump`, `backup_dir`, `emergency`, `readme`, … */
  kind: string;
  status: number;
  /** What showed it is real (first bytes, a matching pattern), capped. */
  evidence: string;
}

export interface SecurityInfo {
  https: boolean;
  /** Whether http:// redirects to https://; null when not tested (site not on HTTPS). */
  http_to_https_redirect: boolean | null;
  hsts: string | null;
  /** The security headers we look for, with their values (null = missing). */
  headers: SecurityHeader[];
  cookies: { name: string; secure: boolean; http_only: boolean; same_site: string | null }[];
  version_disclosure: {
    generator: string | null;
    server: string | null;
    x_powered_by: string | null;
  };
  xmlrpc: {
    /** xmlrpc.php answers as XML-RPC. */
    enabled: boolean;
    methods: number | null;
    multicall: boolean | null;
    pingback: boolean | null;
  };
  /** Which routes disclosed user accounts (`users[]` has who, and where each was seen). */
  user_enumeration: {
    rest_api: boolean;
    author_archives: boolean;
    oembed: boolean;
    /** Core's users sitemap (wp-sitemap-users-1.xml) lists author archives. Since 1.2.0. */
    sitemap?: boolean;
    /** Feeds name post authors (display names). Since 1.2.0. */
    feed?: boolean;
  };
  users: DisclosedUser[];
  exposed_files: ExposedFile[];
  /** Directories that answer with a listing of their files. */
  directory_listing: string[];
  login: {
    url: string | null;
    /** wp-login.php answers with the login form. */
    reachable: boolean;
    over_https: boolean;
  };
}

export interface Report {
  id: string;
  schema_version: string;
  status: ReportStatus;
  /** The URL as asked. */
  url: string;
  /** The homepage URL after redirects; null until fetched. */
  final_url: string | null;
  redirects: Redirect[];
  created_at: string;
  completed_at: string | null;
  duration_ms: number | null;
  metadata: ReportMetadata;
  /** Null until the analysis completes. */
  summary: Summary | null;
  wordpress: WordPressInfo | null;
  /** The active theme; null when not WordPress or not found. */
  theme: ThemeInfo | null;
  plugins: PluginInfo[];
  hosting: HostingInfo | null;
  performance: PerformanceInfo | null;
  seo: SeoInfo | null;
  security: SecurityInfo | null;
  checks: Check[];
  errors: ReportError[];
  /** The sources of latest versions and vulnerabilities, with their attribution; null before completion. Since 1.1.0. */
  intel?: ReportIntel | null;
  /** "passive" (the default) or "aggressive" (opt-in enumeration, docs/enumeration.md). Since 1.2.0. */
  mode?: AnalysisMode;
  /** What aggressive enumeration did; null for passive reports. Since 1.2.0. */
  enumeration?: EnumerationSummary | null;
  /**
   * Themes installed besides the active one and its parent, which the site does not load:
   * named by an open listing of the themes folder (at most 50), or found by aggressive
   * enumeration (`found_by: "aggressive"`). Their code can still be requested directly, so
   * their vulnerabilities are looked up. Since 1.2.0.
   */
  installed_themes?: Component[];
}

/** Aggressive enumeration's account of itself (docs/enumeration.md). */
export interface EnumerationSummary {
  budget: { max_requests: number; time_budget_ms: number };
  /** Requests made, calibration and version reads included. */
  requests: number;
  duration_ms: number;
  /** Why it stopped: it went through every candidate, or a budget ran out first. */
  stopped_by: "finished" | "request_budget" | "time_budget" | "deadline" | "site_errors";
  plugins: EnumerationKind<"directory" | "readme" | "unreliable">;
  themes: EnumerationKind<"style_css" | "unreliable">;
}

export interface EnumerationKind<Method extends string> {
  /**
   * How presence was told: `directory` (a plugin's folder answers 403/200 while a random one
   * answers 404), `readme`/`style_css` (that file answers 200), `unreliable` (the site answers
   * a made-up component like a real one, so nothing was probed).
   */
  method: Method;
  candidates: number;
  /** How many of the candidates came first because they have known vulnerabilities. */
  vulnerable_candidates: number;
  probed: number;
  /** Slugs found (already-detected ones are not probed again). */
  found: string[];
}
