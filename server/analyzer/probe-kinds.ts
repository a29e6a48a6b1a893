/**
 * The probe catalogue: every kind of request the analyzer makes besides the homepage and the
 * asset sample, one record each — the key its answer is stored under in `artifacts.probes`,
 * where its URL comes from, how it is asked and how much of it is read, what the answer
 * proves, and which checks and facts read it. Gather builds its requests from these records
 * (gather/probes.ts turns a record into a request); aggressive enumeration
 * (enumeration/enumerate.ts) stores its answers under the keys of the last two.
 *
 * Keys are typed: `ProbeKey` (probe-keys.ts) is derived from the records' key patterns, so
 * `artifacts.probes.rest_roots` or `probeKey("plugin_readmes", slug)` does not compile. The
 * key strings themselves are what saved artifacts (test/analyzer/artifacts/*.json) hold: never rename one.
 */
import type { CheckId } from "./audit/catalogue.ts";

/** Where a probe's URL comes from. */
export type ProbeUrl =
  /**
   * A path under one of the install's bases (detect/site-paths.ts): WordPress's home (the
   * front, REST API, archives), its core directory (siteurl: wp-login.php, xmlrpc.php,
   * wp-admin/), its content directory, or the origin's root.
   */
  | {
      readonly from: "home" | "core" | "content" | "origin";
      readonly path: string;
      /**
       * For a component's own file: asked under the content directory its files were loaded
       * from — the site's, or an asset origin's (a CDN, a pull zone: SitePaths.assetBases).
       */
      readonly componentFile?: true;
    }
  /** A route of the REST API, in the style of the root (pretty /wp-json/… or ?rest_route=/…). */
  | { readonly from: "rest"; readonly route: string }
  /** Worked out by gather from the homepage, another answer or a list; `how` says from what. */
  | { readonly from: "found"; readonly how: string };

/** How a probe is asked and read. */
export interface ProbeRequest {
  readonly method?: "GET" | "HEAD" | "POST";
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** Follow redirects (default true). */
  readonly follow?: boolean;
  /** Cap on the decoded body (default PROBE_MAX_BYTES). */
  readonly maxBytes?: number;
  /**
   * Ask with HEAD first and GET only when the answer may be the file (200/206) or the
   * server does not do HEAD. WordPress answers a HEAD for a missing path without rendering
   * its theme, so a miss costs a third of the server's time — and most probes miss.
   * Over HTTP/2 and HTTP/1.1 alike (the HEAD keeps its connection: fetch/safe-client.ts);
   * not for PHP scripts (exposedFileProbe).
   * `"missing"`: the HEAD's answer stands only when it is a 404 or 410, unfollowed; any other
   * answer is asked again with GET, for a probe whose body matters unless the path is plainly
   * missing (the 404 fingerprint).
   */
  readonly headFirst?: boolean | "missing";
  /** A POST that changes nothing: it may share an HTTP/2 connection with requests in flight. */
  readonly idempotent?: boolean;
}

export interface ProbeKind extends ProbeRequest {
  /**
   * The key of its answer in `artifacts.probes`: fixed (`robots`), or a pattern in which
   * `<slug>` stands for the probe's parameter, `<url>` for its URL and `<path>` for the
   * URL's path (`plugin_readme:<slug>`, `sitemap:<url>`, `exposed:<path>`).
   */
  readonly key: string;
  readonly url: ProbeUrl;
  /** Which stage asks it: gather (every analysis) or aggressive enumeration (opt-in). */
  readonly askedBy: "gather" | "enumeration";
  /** When it is asked, if not always (docs/probes.md's "asked" column says it first). */
  readonly when?: string;
  /** What the answer proves, in a sentence (docs/probes.md). */
  readonly proves: string;
  /** The checks whose result depends on the answer (through the facts). */
  readonly checks: readonly CheckId[];
  /** The facts established from the answer, and where. */
  readonly facts: readonly string[];
}

/**
 * What is read of a plugins/ or themes/ listing: ~3 000 rows of Apache's fancy index, far
 * more than detect reads (MAX_LISTING_ENTRIES); a 5 MB listing costs this and no more.
 */
export const LISTING_MAX_BYTES = 256 * 1024;

export const XMLRPC_LIST_METHODS =
  '<?xml version="1.0"?><methodCall><methodName>system.listMethods</methodName><params></params></methodCall>';

const EXPOSED_CHECKS = [
  "security.config_backup_exposed",
  "security.env_file_exposed",
  "security.db_dump_exposed",
  "security.installer_exposed",
  "security.emergency_script_exposed",
  "security.git_exposed",
  "security.debug_log_exposed",
  "security.installer_log_exposed",
  "security.backup_dir_exposed",
] as const satisfies readonly CheckId[];
/** The checks a plugin's version feeds. */
const VERSION_CHECKS = [
  "components.plugins_outdated",
  "components.plugins_vulnerable",
] as const satisfies readonly CheckId[];
/** Read of a changelog: its newest entries are at the top (an oldest-first one is only read if small). */
export const CHANGELOG_HEAD_BYTES = 32 * 1024;
/** Read of a .pot: its header entry is in the first lines. */
export const POT_HEAD_BYTES = 4 * 1024;
/** Read of a package.json / composer.json: JSON parses whole or not at all. */
export const MANIFEST_BYTES = 64 * 1024;
/** Read of a plugin's own script or stylesheet: the banner comment it opens with. */
export const ASSET_HEAD_BYTES = 2 * 1024;
const VERSION_FILES_WHEN =
  "for a plugin found without a version, after its readme.txt, until one file settles it (a few per plugin and per report); in aggressive mode for every plugin";
const AGGRESSIVE_FILES_WHEN = "aggressive mode only, for a plugin whose version the files read so far did not settle";
const USER_CHECKS = ["security.user_enumeration", "security.admin_username"] as const satisfies readonly CheckId[];

/** Every probe kind, by name: the key itself for a fixed key, the key's prefix for a pattern. */
export const PROBE_KINDS = {
  not_found: {
    key: "not_found",
    url: { from: "home", path: "wpreport-<random>-not-found/" },
    // A plain 404 or 410 needs no page to compare with (extract/soft-404.ts): WordPress
    // answers the HEAD without rendering its theme's 404 page. Anything else is asked with GET.
    headFirst: "missing",
    askedBy: "gather",
    proves:
      "How the site answers a path that cannot exist (its 404 fingerprint): a probe answered like it found nothing, whatever its status.",
    checks: EXPOSED_CHECKS,
    facts: ["security.exposed_files (extract/soft-404.ts)"],
  },
  rest_root: {
    key: "rest_root",
    url: {
      from: "found",
      how: "the REST root the homepage advertises, else <home>wp-json/, else <home>?rest_route=/ (the first that answers as a REST root), asked with _fields=name,url,home,namespaces (the fields read: the whole index lists every route)",
    },
    maxBytes: 128 * 1024,
    askedBy: "gather",
    proves: "The REST API answers; its namespaces name plugins that registered routes, and wp/v2 is WordPress's own.",
    checks: ["security.rest_user_enumeration"],
    facts: ["wordpress (detect/wordpress.ts)", "plugins (detect/plugins.ts)"],
  },
  rest_users: {
    key: "rest_users",
    url: { from: "rest", route: "wp/v2/users?per_page=100" },
    maxBytes: 128 * 1024,
    askedBy: "gather",
    proves: "The REST API lists user accounts with their login names (slug) to anyone.",
    checks: ["security.rest_user_enumeration", ...USER_CHECKS],
    facts: ["users (detect/users.ts)"],
  },
  author_1: {
    key: "author_1",
    url: { from: "home", path: "?author=1" },
    follow: false,
    maxBytes: 64 * 1024,
    askedBy: "gather",
    proves: "/?author=1 redirects to /author/<login>/ (or its archive page names the author's slug).",
    checks: ["security.author_enumeration", ...USER_CHECKS],
    facts: ["users (detect/users.ts)"],
  },
  users_sitemap: {
    key: "users_sitemap",
    url: { from: "home", path: "wp-sitemap-users-1.xml" },
    maxBytes: 128 * 1024,
    askedBy: "gather",
    proves: "WordPress ≥ 5.5 lists every author's archive URL (/author/<login>/) in its users sitemap.",
    checks: USER_CHECKS,
    facts: ["users (detect/users.ts)"],
  },
  oembed: {
    key: "oembed",
    url: { from: "rest", route: "oembed/1.0/embed?url=<item>" },
    maxBytes: 64 * 1024,
    askedBy: "gather",
    proves: "oEmbed of the feed's newest item names its author (display name and author URL).",
    checks: USER_CHECKS,
    facts: ["users (detect/users.ts)"],
  },
  robots: {
    key: "robots",
    url: { from: "origin", path: "/robots.txt" },
    maxBytes: 64 * 1024,
    askedBy: "gather",
    proves: "robots.txt: whether crawlers may reach the site, and which sitemaps it names.",
    checks: ["seo.robots_txt", "seo.robots_txt_blocks_all", "seo.sitemap_in_robots"],
    facts: ["seo.robots_txt (extract/seo.ts)"],
  },
  sitemap: {
    key: "sitemap:<url>",
    url: {
      from: "found",
      how: "<home>wp-sitemap.xml and the sitemaps robots.txt lists on the same origin (at most MAX_EXTRA_SITEMAPS); <home>sitemap_index.xml and sitemap.xml only when none of those is a sitemap",
    },
    maxBytes: 512 * 1024,
    askedBy: "gather",
    proves: "An XML sitemap answers there, and how many URLs it lists.",
    checks: ["seo.sitemap", "seo.sitemap_in_robots"],
    facts: ["seo.sitemaps (extract/seo.ts)"],
  },
  feed: {
    key: "feed",
    url: { from: "found", how: "the first RSS/Atom feed the homepage advertises on its origin, else <home>feed/" },
    maxBytes: 512 * 1024,
    askedBy: "gather",
    proves: "The feed's generator gives the WordPress version; its items name their authors and the newest item.",
    checks: ["security.wp_version_disclosed", "components.core_outdated", "components.core_vulnerable", ...USER_CHECKS],
    facts: ["wordpress (detect/wordpress.ts)", "users (detect/users.ts)"],
  },
  readme_html: {
    key: "readme_html",
    url: { from: "core", path: "readme.html" },
    maxBytes: 64 * 1024,
    askedBy: "gather",
    proves: "WordPress's readme.html is public (it names the version's branch).",
    checks: ["security.readme_exposed"],
    facts: ["wordpress (detect/wordpress.ts)", "security.exposed_files (extract/security.ts)"],
  },
  login: {
    key: "login",
    url: { from: "core", path: "wp-login.php" },
    maxBytes: 128 * 1024,
    askedBy: "gather",
    proves: "The login form is there, over HTTPS or not; its assets' ?ver= give the WordPress version.",
    checks: ["security.login_over_https"],
    facts: ["wordpress (detect/wordpress.ts)", "security.login (extract/security.ts)"],
  },
  xmlrpc_methods: {
    key: "xmlrpc_methods",
    url: { from: "core", path: "xmlrpc.php" },
    method: "POST",
    headers: { "content-type": "text/xml" },
    body: XMLRPC_LIST_METHODS,
    idempotent: true, // system.listMethods only reads
    follow: false,
    maxBytes: 64 * 1024,
    askedBy: "gather",
    proves: "XML-RPC answers system.listMethods: it is on, and whether it offers system.multicall and pingback.ping.",
    checks: ["security.xmlrpc_enabled", "security.xmlrpc_multicall", "security.xmlrpc_pingback"],
    facts: ["security.xmlrpc (extract/security.ts)"],
  },
  xmlrpc_get: {
    key: "xmlrpc_get",
    url: { from: "core", path: "xmlrpc.php" },
    maxBytes: 16 * 1024,
    askedBy: "gather",
    proves:
      "Only when system.listMethods got no XML-RPC answer (a firewall blocking POSTs): whether xmlrpc.php is there at all.",
    checks: ["security.xmlrpc_enabled"],
    facts: ["wordpress (detect/wordpress.ts)", "security.xmlrpc (extract/security.ts)"],
  },
  uploads: {
    key: "uploads",
    url: { from: "content", path: "uploads/" },
    follow: false,
    maxBytes: 64 * 1024,
    askedBy: "gather",
    proves: "The uploads folder lists its files (an open directory listing).",
    checks: ["security.directory_listing"],
    facts: ["security.directory_listing (extract/security.ts)"],
  },
  plugins_listing: {
    key: "plugins_listing",
    url: { from: "content", path: "plugins/" },
    follow: false,
    maxBytes: LISTING_MAX_BYTES,
    askedBy: "gather",
    proves: "An open listing of the plugins folder names every installed plugin, active or not.",
    checks: ["security.directory_listing"],
    facts: ["plugins (detect/finders/listing.ts)", "security.directory_listing (extract/security.ts)"],
  },
  themes_listing: {
    key: "themes_listing",
    url: { from: "content", path: "themes/" },
    follow: false,
    maxBytes: LISTING_MAX_BYTES,
    askedBy: "gather",
    proves: "An open listing of the themes folder names every installed theme.",
    checks: ["security.directory_listing"],
    facts: ["installedThemes (detect/enumerated.ts)", "security.directory_listing (extract/security.ts)"],
  },
  exposed: {
    key: "exposed:<path>",
    url: {
      from: "found",
      how: "each path of EXPOSED_FILES, under the home, the core directory or the content directory",
    },
    follow: false,
    headFirst: true,
    maxBytes: 32 * 1024,
    askedBy: "gather",
    proves: "A file that must never be public is readable (its content proves it, past the soft-404 guard).",
    checks: [...EXPOSED_CHECKS, "security.directory_listing"],
    facts: ["security.exposed_files (extract/security.ts)"],
  },
  theme_style: {
    key: "theme_style:<slug>",
    url: { from: "content", path: "themes/<slug>/style.css", componentFile: true },
    maxBytes: 16 * 1024,
    askedBy: "gather",
    proves:
      "The header of a theme's style.css: its name, version and parent (Template:). Asked for the themes the page uses and for the parent a child names.",
    checks: ["components.theme_outdated", "components.theme_vulnerable"],
    facts: ["theme (detect/theme.ts)"],
  },
  plugin_readme: {
    key: "plugin_readme:<slug>",
    url: { from: "content", path: "plugins/<slug>/readme.txt", componentFile: true },
    maxBytes: 64 * 1024, // the name, Stable tag and changelog are in the first 64 KB
    askedBy: "gather",
    proves:
      "A plugin's readme.txt: its name, and its version (Stable tag, changelog). Asked for plugins seen on the page, in the REST API or in the plugins listing, and for any other plugin found without a version.",
    checks: ["components.plugin_versions_exposed", "components.plugins_outdated", "components.plugins_vulnerable"],
    facts: ["plugins (detect/plugins.ts, detect/finders/files.ts)"],
  },
  plugin_pot: {
    key: "plugin_pot:<slug>",
    url: { from: "content", path: "plugins/<slug>/languages/<slug>.pot", componentFile: true },
    headers: { range: `bytes=0-${POT_HEAD_BYTES - 1}` },
    maxBytes: POT_HEAD_BYTES,
    askedBy: "gather",
    when: VERSION_FILES_WHEN,
    proves:
      "A plugin's translation template: its header's Project-Id-Version (\"Name 1.2.3\") is written from the plugin header when the template is built.",
    checks: VERSION_CHECKS,
    facts: ["plugins (detect/finders/files.ts)"],
  },
  plugin_changelog: {
    key: "plugin_changelog:<slug>",
    url: { from: "content", path: "plugins/<slug>/changelog.txt", componentFile: true },
    headers: { range: `bytes=0-${CHANGELOG_HEAD_BYTES - 1}` },
    maxBytes: CHANGELOG_HEAD_BYTES,
    askedBy: "gather",
    when: VERSION_FILES_WHEN,
    proves: "A plugin's changelog.txt: its newest released entry (an archive of older entries names none).",
    checks: VERSION_CHECKS,
    facts: ["plugins (detect/finders/files.ts)"],
  },
  plugin_changelog_md: {
    key: "plugin_changelog_md:<slug>",
    url: { from: "content", path: "plugins/<slug>/CHANGELOG.md", componentFile: true },
    headers: { range: `bytes=0-${CHANGELOG_HEAD_BYTES - 1}` },
    maxBytes: CHANGELOG_HEAD_BYTES,
    askedBy: "gather",
    when: VERSION_FILES_WHEN,
    proves:
      "A plugin's CHANGELOG.md: its newest released entry (Keep a Changelog's [Unreleased] and entries marked unreleased are skipped).",
    checks: VERSION_CHECKS,
    facts: ["plugins (detect/finders/files.ts)"],
  },
  plugin_package_json: {
    key: "plugin_package_json:<slug>",
    url: { from: "content", path: "plugins/<slug>/package.json", componentFile: true },
    maxBytes: MANIFEST_BYTES,
    askedBy: "enumeration",
    when: AGGRESSIVE_FILES_WHEN,
    proves:
      "A plugin's package.json: its version, counted only when its name is the plugin's (not a build tool's template).",
    checks: VERSION_CHECKS,
    facts: ["plugins (detect/finders/files.ts)"],
  },
  plugin_composer_json: {
    key: "plugin_composer_json:<slug>",
    url: { from: "content", path: "plugins/<slug>/composer.json", componentFile: true },
    maxBytes: MANIFEST_BYTES,
    askedBy: "enumeration",
    when: AGGRESSIVE_FILES_WHEN,
    proves: "A plugin's composer.json: its version, counted only when its name (vendor/<name>) is the plugin's.",
    checks: VERSION_CHECKS,
    facts: ["plugins (detect/finders/files.ts)"],
  },
  plugin_pot_lang: {
    key: "plugin_pot_lang:<slug>",
    url: { from: "content", path: "plugins/<slug>/lang/<slug>.pot", componentFile: true },
    headers: { range: `bytes=0-${POT_HEAD_BYTES - 1}` },
    maxBytes: POT_HEAD_BYTES,
    askedBy: "enumeration",
    when: AGGRESSIVE_FILES_WHEN,
    proves:
      "The translation template where older plugins keep it (lang/ rather than languages/): its Project-Id-Version.",
    checks: VERSION_CHECKS,
    facts: ["plugins (detect/finders/files.ts)"],
  },
  plugin_changelog_lower_md: {
    key: "plugin_changelog_lower_md:<slug>",
    url: { from: "content", path: "plugins/<slug>/changelog.md", componentFile: true },
    headers: { range: `bytes=0-${CHANGELOG_HEAD_BYTES - 1}` },
    maxBytes: CHANGELOG_HEAD_BYTES,
    askedBy: "enumeration",
    when: AGGRESSIVE_FILES_WHEN,
    proves: "A plugin's changelog under the other names plugins give it (changelog.md): its newest released entry.",
    checks: VERSION_CHECKS,
    facts: ["plugins (detect/finders/files.ts)"],
  },
  plugin_changelog_upper_txt: {
    key: "plugin_changelog_upper_txt:<slug>",
    url: { from: "content", path: "plugins/<slug>/CHANGELOG.txt", componentFile: true },
    headers: { range: `bytes=0-${CHANGELOG_HEAD_BYTES - 1}` },
    maxBytes: CHANGELOG_HEAD_BYTES,
    askedBy: "enumeration",
    when: AGGRESSIVE_FILES_WHEN,
    proves: "A plugin's changelog under the other names plugins give it (CHANGELOG.txt): its newest released entry.",
    checks: VERSION_CHECKS,
    facts: ["plugins (detect/finders/files.ts)"],
  },
  plugin_changes_md: {
    key: "plugin_changes_md:<slug>",
    url: { from: "content", path: "plugins/<slug>/CHANGES.md", componentFile: true },
    headers: { range: `bytes=0-${CHANGELOG_HEAD_BYTES - 1}` },
    maxBytes: CHANGELOG_HEAD_BYTES,
    askedBy: "enumeration",
    when: AGGRESSIVE_FILES_WHEN,
    proves: "A plugin's changelog under the other names plugins give it (CHANGES.md): its newest released entry.",
    checks: VERSION_CHECKS,
    facts: ["plugins (detect/finders/files.ts)"],
  },
  plugin_changes_txt: {
    key: "plugin_changes_txt:<slug>",
    url: { from: "content", path: "plugins/<slug>/changes.txt", componentFile: true },
    headers: { range: `bytes=0-${CHANGELOG_HEAD_BYTES - 1}` },
    maxBytes: CHANGELOG_HEAD_BYTES,
    askedBy: "enumeration",
    when: AGGRESSIVE_FILES_WHEN,
    proves: "A plugin's changelog under the other names plugins give it (changes.txt): its newest released entry.",
    checks: VERSION_CHECKS,
    facts: ["plugins (detect/finders/files.ts)"],
  },
  plugin_pot_i18n: {
    key: "plugin_pot_i18n:<slug>",
    url: { from: "content", path: "plugins/<slug>/i18n/<slug>.pot", componentFile: true },
    headers: { range: `bytes=0-${POT_HEAD_BYTES - 1}` },
    maxBytes: POT_HEAD_BYTES,
    askedBy: "enumeration",
    when: AGGRESSIVE_FILES_WHEN,
    proves: "The translation template where some plugins keep it (i18n/): its Project-Id-Version.",
    checks: VERSION_CHECKS,
    facts: ["plugins (detect/finders/files.ts)"],
  },
  plugin_po_en_us: {
    key: "plugin_po_en_us:<slug>",
    url: { from: "content", path: "plugins/<slug>/languages/<slug>-en_US.po", componentFile: true },
    headers: { range: `bytes=0-${POT_HEAD_BYTES - 1}` },
    maxBytes: POT_HEAD_BYTES,
    askedBy: "enumeration",
    when: AGGRESSIVE_FILES_WHEN,
    proves:
      "The English translation a plugin ships instead of a template (languages/<slug>-en_US.po): the same Project-Id-Version header.",
    checks: VERSION_CHECKS,
    facts: ["plugins (detect/finders/files.ts)"],
  },
  plugin_asset: {
    key: "plugin_asset:<slug>",
    url: {
      from: "found",
      how: "the first script or stylesheet of the plugin the page loads on the site's origin, when the asset sample did not already read one",
    },
    headers: { range: `bytes=0-${ASSET_HEAD_BYTES - 1}` },
    maxBytes: ASSET_HEAD_BYTES,
    askedBy: "enumeration",
    when: AGGRESSIVE_FILES_WHEN,
    proves:
      "The banner a plugin's own script or stylesheet opens with (/*! Name v1.2.3 */, Version: under the plugin's name); a bundled library's banner names something else.",
    checks: VERSION_CHECKS,
    facts: ["plugins (detect/finders/files.ts)"],
  },
  http_redirect: {
    key: "http_redirect",
    url: { from: "found", how: "the homepage's URL with http:// and the default port (HTTPS sites only)" },
    follow: false,
    maxBytes: 16 * 1024,
    askedBy: "gather",
    proves: "Whether http:// redirects straight to https://.",
    checks: ["security.http_to_https_redirect"],
    facts: ["security.http_to_https_redirect (extract/security.ts)"],
  },
  block_control: {
    key: "block_control:<slug>",
    url: {
      from: "found",
      how: "the URL of a probe that met a challenge or block page, its last path segment replaced by a random name of the same shape (/.git/HEAD → /.git/wpreport-<random>, /wp-content/debug.log → /wp-content/wpreport-<random>.log); the key's <slug> is the probe's own path",
    },
    follow: false,
    maxBytes: 32 * 1024,
    askedBy: "gather",
    when: "only after a probe met a challenge or block page: one per distinct page, at most MAX_BLOCK_CONTROLS per report",
    proves:
      "Whether the firewall answers a path that cannot exist with the same page: then the probe's path was filtered, not answered. A page that only reads like a block counts as one only then.",
    checks: [
      ...EXPOSED_CHECKS,
      "security.readme_exposed",
      "security.directory_listing",
      "security.xmlrpc_enabled",
      "security.rest_user_enumeration",
      "security.author_enumeration",
      ...USER_CHECKS,
    ],
    facts: ["probes.obstacles (extract/probe-answers.ts)", "hosting.waf (detect/hosting.ts)"],
  },
  enum_plugin: {
    key: "enum_plugin:<slug>",
    url: { from: "content", path: "plugins/<slug>/" },
    askedBy: "enumeration",
    proves:
      "A plugin the page does not show is installed: its folder (or readme.txt) answers where a made-up one answers 404. Only its proof is kept.",
    checks: ["components.plugins_outdated", "components.plugins_vulnerable"],
    facts: ["plugins, found_by aggressive (detect/enumerated.ts)"],
  },
  enum_theme: {
    key: "enum_theme:<slug>",
    url: { from: "content", path: "themes/<slug>/style.css" },
    askedBy: "enumeration",
    proves: "A theme the page does not show is installed: its style.css answers where a made-up one answers 404.",
    checks: [],
    facts: ["installedThemes (detect/enumerated.ts)"],
  },
} as const satisfies Record<string, ProbeKind>;

// ── Exposed files ───────────────────────────────────────────────────────────────────────

export interface ExposedFileSpec {
  /** Path relative to WordPress's home, its core directory or the content directory (`base`). */
  path: string;
  base: "home" | "core" | "content";
  /**
   * Also asked under the core directory when it is not home: wp-config.php lives in core's
   * directory or the one above it (home, in the Bedrock layout), and its backups beside it.
   */
  alsoUnderCore?: true;
  kind: ExposedKind;
  /** Read only the first bytes (logs and dumps can be huge). */
  range?: boolean;
}

export type ExposedKind =
  | "debug_log"
  | "config_backup"
  | "env_file"
  | "git"
  | "installer"
  | "installer_log"
  | "backup_dir"
  | "emergency"
  | "db_dump";

/** Files and folders that must never be public (probe `exposed:<path>`). */
export const EXPOSED_FILES: readonly ExposedFileSpec[] = [
  { path: "debug.log", base: "content", kind: "debug_log", range: true },
  { path: "wp-config.php.bak", base: "home", alsoUnderCore: true, kind: "config_backup" },
  { path: "wp-config.php~", base: "home", alsoUnderCore: true, kind: "config_backup" },
  { path: "wp-config.php.save", base: "home", alsoUnderCore: true, kind: "config_backup" },
  { path: "wp-config.php.old", base: "home", alsoUnderCore: true, kind: "config_backup" },
  { path: "wp-config.php.orig", base: "home", alsoUnderCore: true, kind: "config_backup" },
  { path: "wp-config.php.txt", base: "home", alsoUnderCore: true, kind: "config_backup" },
  { path: ".wp-config.php.swp", base: "home", alsoUnderCore: true, kind: "config_backup" },
  { path: ".env", base: "home", kind: "env_file" },
  { path: ".git/HEAD", base: "home", kind: "git" },
  { path: "wp-admin/install.php", base: "core", kind: "installer" },
  { path: "installer-log.txt", base: "home", kind: "installer_log" },
  { path: "backup-db/", base: "content", kind: "backup_dir" },
  { path: "emergency.php", base: "home", kind: "emergency" },
  { path: "dump.sql", base: "home", kind: "db_dump", range: true },
];
