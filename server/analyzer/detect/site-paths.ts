/**
 * The install's shape: where WordPress really lives on the site, discovered from what the site
 * shows, in one place that gather (where to probe), detect (which files are the site's), the
 * checks (did a probe reach the right place) and the report (`wordpress.layout`) all read.
 *
 *  - **home** — WordPress's `home`: the front page, the REST API, feeds, author archives,
 *    sitemaps. From the REST index's `home`, else the REST root the page advertises, else the
 *    URL analyzed.
 *  - **core** — WordPress's `siteurl`: wp-includes/, wp-admin/, wp-login.php, xmlrpc.php,
 *    readme.html. It differs from home when WordPress has its own directory (Bedrock: `/wp/`).
 *    From the REST index's `url`, else the site's own wp-includes/ and wp-admin/ URLs in the
 *    page, else its RSD/pingback link to xmlrpc.php; otherwise assumed to be home.
 *  - **content** — the content directory on the site's origin, under any name (`/app/`).
 *    From the site's own `<content>/themes|plugins/<slug>/` files in the page, else its
 *    `<content>/uploads/<year>/<month>/` files, else the path its asset origin serves them
 *    under (a pull zone mirrors the site's paths); otherwise assumed to be `<core>wp-content/`.
 *  - **asset bases** — content directories on other origins (a CDN, a static host, a pull zone)
 *    whose plugins/ and themes/ files belong to this site.
 *
 * A base nothing showed is WordPress's default layout, assumed; probes go there, but a probe
 * that found nothing at an assumed or unconfirmed place proves nothing, and its checks skip
 * (`placeConfirmed`). Probe answers that can only come from the right place (XML-RPC
 * answering, the login form, the content folders' empty index.php) confirm it afterwards.
 * docs/detection.md, "The install's shape", has the rules and their reasons.
 */
import type { Evidence } from "../../../shared/report.ts";
import type { Artifacts, HttpArtifact } from "../artifacts.ts";
import { resolveUrl } from "../artifacts.ts";
import { linksWithRel, pageOf } from "../parse/page.ts";
import { pageResources } from "../parse/urls.ts";
import { siteText, siteUrl } from "../untrusted-text.ts";
import { assetBasesOf, COMPONENT_FILE, CORE_FILE } from "./asset-origins.ts";
import { isRestRoot, restRootUrl } from "./rest.ts";
import { confirmByAnswers, INFERRED_FROM_ASSET_ORIGIN } from "./site-paths-confirm.ts";

export { askedAt, placeConfirmed } from "./site-paths-confirm.ts";

/** One of the bases a probe's URL is built on. */
export type SiteBase = "home" | "core" | "content";

export interface SitePaths {
  /** Origin of the homepage after redirects. */
  origin: string;
  /** Absolute URL of WordPress's home (the front, REST API, feeds, archives), ending with "/". */
  homeBase: string;
  /** Absolute URL of WordPress's core directory (siteurl: wp-includes/, wp-login.php, xmlrpc.php), ending with "/". */
  coreBase: string;
  /** Absolute URL of the content directory on the site's origin, ending with "/". */
  contentBase: string;
  /** True when the content directory is not `<coreBase>wp-content/`. */
  customContent: boolean;
  /** The REST API root the site advertises on its own origin, if any. */
  restRoot: string | null;
  /**
   * Content directories on other origins (absolute, ending with "/"): a CDN, static host or
   * pull zone serving this site's plugins/ and themes/ files, e.g. `https://cdn.example.com/app/`.
   */
  assetBases: readonly string[];
  /** How each base was found, in the report's evidence form; empty when it is assumed. */
  found: Readonly<Record<SiteBase, readonly Evidence[]>>;
}

/** The folder of a URL path that ends with `marker` (a path, "/" kept), or null. */
const folderBefore = (path: string, marker: RegExp): string | null => {
  const match = marker.exec(path);
  return match ? path.slice(0, match.index + 1) : null;
};

/** `home` and `url` (siteurl) from the REST index, read from its start (the index is often cut at the probe's cap). */
function restIndexUrls(root: HttpArtifact | undefined): { home?: string; url?: string } {
  if (!isRestRoot(root)) return {};
  // The top-level fields before the namespaces and routes (a route's "url" must not be taken).
  const end = root.body.search(/"namespaces"\s*:/);
  const head = root.body.slice(0, end > 0 ? Math.min(end, 8_000) : 4_000);
  const field = (name: string) => {
    const raw = new RegExp(`"${name}"\\s*:\\s*"((?:[^"\\\\]|\\\\.){1,2048})"`).exec(head)?.[1];
    if (raw === undefined) return undefined;
    try {
      return JSON.parse(`"${raw}"`) as string;
    } catch {
      return undefined;
    }
  };
  return { home: field("home"), url: field("url") };
}

/**
 * A URL WordPress gave for its home or siteurl, as a folder of the analyzed origin. The host
 * must match; the scheme and port may not (a site behind a TLS proxy often keeps http:// in
 * its options), so the path is taken onto the origin that answered.
 */
function sameSiteFolder(value: string | undefined, origin: string): string | null {
  const url = resolveUrl(value, origin);
  if (!url || url.hostname !== new URL(origin).hostname) return null;
  const path = url.pathname.endsWith("/") ? url.pathname : `${url.pathname}/`;
  return new URL(path, origin).toString();
}

function restRootOf(homepage: HttpArtifact): string | null {
  const header = /<([^>]+)>\s*;\s*rel="https:\/\/api\.w\.org\/"/.exec(homepage.headers.link ?? "")?.[1];
  const tag = linksWithRel(pageOf(homepage), "https://api.w.org/")[0]?.attrs.href;
  for (const candidate of [header, tag]) {
    const url = resolveUrl(candidate, homepage.url);
    if (url && url.origin === new URL(homepage.url).origin) return url.toString();
  }
  return null;
}

/** Home from the advertised REST root: `<home>wp-json/` or `<home>?rest_route=/`. */
function homeFromRestRoot(restRoot: string, origin: string): string | null {
  const rest = new URL(restRoot);
  if (rest.searchParams.has("rest_route")) return new URL("./", rest).toString();
  if (/\/wp-json\/?$/.test(rest.pathname)) return new URL(rest.pathname.replace(/wp-json\/?$/, ""), origin).toString();
  return null;
}

/** A folder seen in the page, with the path of a file that showed it (quoted as evidence). */
interface Seen {
  folder: string;
  path: string;
}

/** The most frequent of a list of values (the first seen wins a tie). */
function mostCommon(values: readonly string[]): string | undefined {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  let best: string | undefined;
  let bestCount = 0;
  for (const [value, count] of counts) {
    if (count > bestCount) {
      best = value;
      bestCount = count;
    }
  }
  return best;
}

/**
 * admin-ajax.php URLs in inline settings (`"ajaxurl":"https:\/\/example.com\/wp\/wp-admin\/admin-ajax.php"`):
 * pageResources keeps only static files, and a theme or plugin that prints no core asset still
 * names this one. At most a few occurrences are read, each from a bounded window.
 */
function adminAjaxPaths(homepage: HttpArtifact, origin: string): string[] {
  const paths: string[] = [];
  let from = 0;
  for (let n = 0; n < 5; n++) {
    const at = homepage.body.indexOf("admin-ajax.php", from);
    if (at < 0) break;
    from = at + 1;
    const window = homepage.body.slice(Math.max(0, at - 300), at + "admin-ajax.php".length).replaceAll("\\/", "/");
    const raw = /(?:https?:)?\/\/[a-z0-9.-]+(?::\d+)?\/[^\s"'<>()]*wp-admin\/admin-ajax\.php$/i.exec(window)?.[0];
    const url = resolveUrl(raw, homepage.url);
    if (url?.origin === origin) paths.push(url.pathname);
  }
  return paths;
}

/**
 * The shape from the homepage and, when gathered, the REST index and the answers that prove
 * a place. `artifacts.probes` may be empty: gather plans its first wave on the homepage alone,
 * and asks again once the REST root is in when the homepage did not show where core is.
 */
export function detectSitePaths(artifacts: { homepage: HttpArtifact; probes?: Artifacts["probes"] }): SitePaths {
  const { homepage, probes = {} } = artifacts;
  const home = new URL(homepage.url);
  const origin = home.origin;
  const page = pageOf(homepage);
  const resources = pageResources(page, homepage.body, homepage.url);
  // One pass over the site's own files: core's folders, the content directory's, uploads.
  // (A 2 MB page has a thousand resources: cheap substring tests before each pattern.)
  const coreFiles: Seen[] = [];
  const contentFolders: Seen[] = [];
  const uploads: Seen[] = [];
  for (const { url } of resources) {
    if (url.origin !== origin) continue;
    const path = url.pathname;
    if (path.includes("/wp-")) {
      const folder = folderBefore(path, /\/wp-(?:includes|admin)\//);
      if (folder !== null && !COMPONENT_FILE.test(folder)) coreFiles.push({ folder, path });
    }
    if (path.includes("plugins/") || path.includes("themes/")) {
      const match = COMPONENT_FILE.exec(path);
      // <content>/languages/plugins/ holds translations, not plugins: its parent is the content directory.
      if (match?.[1] && !CORE_FILE.test(match[1]) && !match[1].endsWith("/languages/"))
        contentFolders.push({ folder: match[1], path });
    }
    if (path.includes("/uploads/")) {
      const folder = folderBefore(path, /\/uploads\/(?:sites\/\d+\/)?\d{4}\/\d{2}\//);
      if (folder !== null && !CORE_FILE.test(folder)) uploads.push({ folder, path });
    }
  }
  const restRoot = restRootOf(homepage);
  const rest = restIndexUrls(probes.rest_root);
  const found: Record<SiteBase, Evidence[]> = { home: [], core: [], content: [] };
  const restUrl = probes.rest_root ? siteUrl(restRootUrl(probes.rest_root.url)) : undefined;

  // Home.
  let homeBase = sameSiteFolder(rest.home, origin);
  if (homeBase)
    found.home.push({ source: "home_rest_index", value: siteText(`home: ${rest.home}`, 200), url: restUrl });
  const advertised = restRoot ? homeFromRestRoot(restRoot, origin) : null;
  if (advertised && (!homeBase || advertised === homeBase)) {
    homeBase ??= advertised;
    found.home.push({ source: "home_rest_link", value: siteText(restRoot, 200) });
  }
  // "/blog" asked without its slash is the folder /blog/, not the root: "./" of it would be "/".
  // (Relative to the page, "./<last segment>/": a path such as "//x" must not become a host.)
  const lastSegment = /\/([^/.]+)$/.exec(home.pathname)?.[1];
  homeBase ??= new URL(lastSegment ? `./${lastSegment}/` : "./", home).toString();

  // Core.
  let coreBase = sameSiteFolder(rest.url, origin);
  if (coreBase) found.core.push({ source: "core_rest_index", value: siteText(`url: ${rest.url}`, 200), url: restUrl });
  const ajax = adminAjaxPaths(homepage, origin).map((path) => ({
    folder: path.replace(/wp-admin\/admin-ajax\.php$/, ""),
    path,
  }));
  const xmlrpcLinks = [...linksWithRel(page, "EditURI"), ...linksWithRel(page, "pingback")].flatMap((link) => {
    const url = resolveUrl(link.attrs.href, homepage.url);
    return url?.origin === origin && /\/xmlrpc\.php$/.test(url.pathname)
      ? [{ folder: url.pathname.replace(/xmlrpc\.php$/, ""), path: url.pathname }]
      : [];
  });
  for (const [source, seen] of [
    ["core_files", coreFiles],
    ["core_admin_ajax", ajax],
    ["core_xmlrpc_link", xmlrpcLinks],
  ] as const) {
    const folder = mostCommon(seen.map((item) => item.folder));
    if (folder === undefined) continue;
    const base = new URL(folder, origin).toString();
    if (coreBase && base !== coreBase) continue;
    coreBase ??= base;
    const example = seen.find((item) => item.folder === folder)?.path ?? folder;
    found.core.push({ source, value: siteText(example, 200) });
  }
  const corePath = coreBase ? new URL(coreBase).pathname : null;
  coreBase ??= homeBase;

  // Content, on the site's origin.
  let contentBase: string | null = null;
  for (const [source, seen] of [
    ["content_files", contentFolders],
    ["content_uploads", uploads],
  ] as const) {
    const folder = mostCommon(seen.map((item) => item.folder));
    if (folder === undefined) continue;
    contentBase = new URL(folder, origin).toString();
    found.content.push({ source, value: siteText(seen.find((item) => item.folder === folder)?.path, 200) });
    break;
  }
  const assetBases = assetBasesOf(
    resources,
    origin,
    contentBase ? new URL(contentBase).pathname : null,
    corePath,
    page.bodyClass,
  );
  if (!contentBase && assetBases.length > 0) {
    // A pull zone mirrors the site's paths: https://cdn.example.com/app/ serves /app/.
    const mirrored = mostCommon(assetBases.map((base) => new URL(base).pathname)) as string;
    contentBase = new URL(mirrored, origin).toString();
    found.content.push({
      source: INFERRED_FROM_ASSET_ORIGIN,
      value: siteText(
        assetBases.find((base) => new URL(base).pathname === mirrored),
        200,
      ),
    });
  }
  const defaultContent = new URL("wp-content/", coreBase).toString();
  contentBase ??= defaultContent;

  const paths: SitePaths = {
    origin,
    homeBase,
    coreBase,
    contentBase,
    customContent: contentBase !== defaultContent,
    restRoot,
    assetBases,
    found,
  };
  confirmByAnswers(paths, probes, found);
  return paths;
}

const COMPONENT_SLUG = /^[a-z0-9][a-z0-9._-]{0,99}$/i;

/** A plugin or theme directory name as WordPress.org and premium vendors write them (some capitalised, like Divi). */
export function isComponentSlug(name: string): boolean {
  return COMPONENT_SLUG.test(name);
}

/**
 * Components whose files the page loads: slug → the URLs seen (at most 20 each), for the
 * given folders of the content directory (`plugins`, `mu-plugins`, `themes`). On the site's
 * own origin only its content directory counts (a page of a WordPress under /blog/ that also
 * loads /wp-content/… of another install at the root must not credit that install's plugins
 * to this one); on other origins, the asset bases (a CDN's `…/wp-content/`, a pull zone's
 * `/app/`).
 */
export function componentAssets(
  homepage: HttpArtifact,
  paths: SitePaths,
  folders: readonly string[],
): Map<string, string[]> {
  // Half a dozen detectors ask for the same page's components (a 2 MB page has a thousand
  // resources to walk each time): the walk is kept with the page model, per shape and folders,
  // and each caller gets its own copy (some add to it).
  const page = pageOf(homepage);
  let byKey = componentAssetsCache.get(page);
  if (!byKey) {
    byKey = new Map();
    componentAssetsCache.set(page, byKey);
  }
  const key = [homepage.url, paths.origin, paths.contentBase, paths.assetBases.join(" "), folders.join("/")].join("\n");
  let kept = byKey.get(key);
  if (!kept) {
    kept = walkComponentAssets(homepage, paths, folders);
    byKey.set(key, kept);
  }
  return new Map([...kept].map(([slug, urls]) => [slug, [...urls]]));
}

const componentAssetsCache = new WeakMap<object, Map<string, ReadonlyMap<string, readonly string[]>>>();

function walkComponentAssets(
  homepage: HttpArtifact,
  paths: SitePaths,
  folders: readonly string[],
): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const local = new URL(paths.contentBase).pathname;
  const remote = paths.assetBases.map((base) => new URL(base)).map((base) => [base.origin, base.pathname] as const);
  for (const resource of pageResources(pageOf(homepage), homepage.body, homepage.url)) {
    const { origin, pathname } = resource.url;
    let rest: string | undefined;
    if (origin === paths.origin) {
      if (pathname.startsWith(local)) rest = pathname.slice(local.length);
    } else {
      const base = remote.find(([host, path]) => host === origin && pathname.startsWith(path));
      if (base) rest = pathname.slice(base[1].length);
    }
    if (rest === undefined) continue;
    const [folder, slug = "", ...more] = rest.split("/");
    if (!folder || !folders.includes(folder) || more.length === 0 || !isComponentSlug(slug)) continue;
    const urls = found.get(slug) ?? [];
    if (urls.length < 20) urls.push(resource.url.toString());
    found.set(slug, urls);
  }
  return found;
}

/**
 * The content directory a component's own files come from: the site's, or the asset base its
 * first file was loaded from. Its readme.txt or style.css is asked there — a component seen
 * only on a pull zone is asked on that pull zone (through the same client and target policy).
 */
export function componentBase(paths: SitePaths, urls: readonly string[]): string {
  const first = urls[0];
  if (!first) return paths.contentBase;
  const href = new URL(first);
  const plain = `${href.origin}${href.pathname}`;
  if (plain.startsWith(paths.contentBase)) return paths.contentBase;
  return paths.assetBases.find((base) => plain.startsWith(base)) ?? paths.contentBase;
}
