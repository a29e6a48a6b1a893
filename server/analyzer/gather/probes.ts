/**
 * The probe catalogue: what gather asks a site besides its homepage, under which key the
 * answer is stored in `artifacts.probes`, and how much of it is read.
 *
 * Keys:
 *   not_found              a random path: the site's 404 fingerprint (guards against soft 404s)
 *   rest_root              the REST API root (advertised, else /wp-json/, else ?rest_route=/)
 *   rest_users             REST users endpoint (user enumeration)
 *   author_1               /?author=1, redirects not followed (author archive enumeration)
 *   users_sitemap          wp-sitemap-users-1.xml: core's sitemap of author archives (user enumeration)
 *   oembed                 oEmbed of the newest feed item (discloses the author)
 *   robots                 /robots.txt
 *   sitemap:<url>          wp-sitemap.xml, sitemap_index.xml (Yoast, Rank Math), robots.txt's
 *   feed                   the main RSS/Atom feed
 *   readme_html            /readme.html
 *   login                  /wp-login.php
 *   xmlrpc_get             GET /xmlrpc.php
 *   xmlrpc_methods         POST system.listMethods to /xmlrpc.php
 *   uploads                the uploads directory (directory listing)
 *   plugins_listing        <content>/plugins/, redirects not followed: an open directory listing
 *                          names every installed plugin (gather/listings.ts, with its caps)
 *   themes_listing         <content>/themes/, the same for themes
 *   exposed:<path>         files that must never be public (see EXPOSED_FILES)
 *   theme_style:<slug>     style.css of a theme seen on the page (and of its parent)
 *   plugin_readme:<slug>   readme.txt of a plugin seen on the page, in the REST API or in
 *                          the plugins listing
 *   http_redirect          http:// version of an https homepage, redirects not followed
 */

export interface ProbeSpec {
  key: string;
  url: string;
  method?: "GET" | "HEAD" | "POST";
  headers?: Record<string, string>;
  body?: string;
  /** Follow redirects (default true). */
  follow?: boolean;
  /** Cap on the decoded body (default PROBE_MAX_BYTES). */
  maxBytes?: number;
  /**
   * Ask with HEAD first and GET only when the answer may be the file (200/206) or the
   * server does not do HEAD. WordPress answers a HEAD for a missing path without rendering
   * its theme, so a miss costs a third of the server's time — and most probes miss.
   */
  headFirst?: boolean;
  /** A POST that changes nothing: it may share an HTTP/2 connection with requests in flight. */
  idempotent?: boolean;
}

export const PROBE_MAX_BYTES = 256 * 1024;
/** Kept of an error response's body: enough to tell pages apart, no more. */
export const ERROR_BODY_BYTES = 2 * 1024;

export interface ExposedFileSpec {
  /** Path relative to the WordPress root ("" prefix) or the content directory ("content/" prefix). */
  path: string;
  kind: string;
  /** Read only the first bytes (logs and dumps can be huge). */
  range?: boolean;
}

/** Files and folders that must never be public. Relative to the WordPress root unless `content/`. */
export const EXPOSED_FILES: readonly ExposedFileSpec[] = [
  { path: "content/debug.log", kind: "debug_log", range: true },
  { path: "wp-config.php.bak", kind: "config_backup" },
  { path: "wp-config.php~", kind: "config_backup" },
  { path: "wp-config.php.save", kind: "config_backup" },
  { path: "wp-config.php.old", kind: "config_backup" },
  { path: "wp-config.php.orig", kind: "config_backup" },
  { path: "wp-config.php.txt", kind: "config_backup" },
  { path: ".wp-config.php.swp", kind: "config_backup" },
  { path: ".env", kind: "env_file" },
  { path: ".git/HEAD", kind: "git" },
  { path: "wp-admin/install.php", kind: "installer" },
  { path: "installer-log.txt", kind: "installer_log" },
  { path: "content/backup-db/", kind: "backup_dir" },
  { path: "emergency.php", kind: "emergency" },
  { path: "dump.sql", kind: "db_dump", range: true },
];

export const XMLRPC_LIST_METHODS =
  '<?xml version="1.0"?><methodCall><methodName>system.listMethods</methodName><params></params></methodCall>';

/** How many plugin readmes and theme stylesheets one analysis may fetch. */
export const MAX_PLUGIN_READMES = 20;
export const MAX_THEME_STYLES = 3;
export const MAX_EXTRA_SITEMAPS = 3;
export const MAX_ASSET_SAMPLE = 12;

/** The readme.txt of a plugin (`plugin_readme:<slug>`): its name, Stable tag and changelog are in the first 64 KB. */
export function pluginReadmeProbe(slug: string, contentBase: string): ProbeSpec {
  return {
    key: `plugin_readme:${slug}`,
    url: new URL(`plugins/${slug}/readme.txt`, contentBase).toString(),
    maxBytes: 64 * 1024,
  };
}
