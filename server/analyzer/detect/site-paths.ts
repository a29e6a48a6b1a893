/**
 * Where WordPress lives on the site: its install base (root or a subdirectory), its
 * content directory (wp-content, or a renamed one) and its REST API root. Probes are made
 * relative to these, so a site with WordPress under /blog/ or content under /app/ is
 * probed where its files really are.
 */
import type { HttpArtifact } from "../artifacts.ts";
import { resolveUrl } from "../artifacts.ts";
import { linksWithRel, pageOf } from "../parse/page.ts";
import { pageResources } from "../parse/urls.ts";

export interface SitePaths {
  /** Origin of the homepage after redirects. */
  origin: string;
  /** Absolute URL of the WordPress root, ending with "/". */
  installBase: string;
  /** Absolute URL of the content directory, ending with "/". */
  contentBase: string;
  /** True when the content directory is not `<installBase>wp-content/`. */
  customContent: boolean;
  /** The REST API root the site advertises on its own origin, if any. */
  restRoot: string | null;
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

export function detectSitePaths(homepage: HttpArtifact): SitePaths {
  const home = new URL(homepage.url);
  const origin = home.origin;
  const restRoot = restRootOf(homepage);
  const resources = pageResources(pageOf(homepage), homepage.body, homepage.url).filter(
    (resource) => resource.url.origin === origin,
  );

  let installBase: string | undefined;
  if (restRoot) {
    const rest = new URL(restRoot);
    if (rest.searchParams.has("rest_route")) installBase = new URL("./", rest).toString();
    else if (/\/wp-json\/?$/.test(rest.pathname))
      installBase = new URL(rest.pathname.replace(/wp-json\/?$/, ""), origin).toString();
  }
  if (!installBase) {
    const includes = resources.find((resource) => resource.url.pathname.includes("/wp-includes/"));
    if (includes)
      installBase = new URL(
        includes.url.pathname.slice(0, includes.url.pathname.indexOf("wp-includes/")),
        origin,
      ).toString();
  }
  // "/blog" asked without its slash is the folder /blog/, not the root: "./" of it would be "/".
  // (Relative to the page, "./<last segment>/": a path such as "//x" must not become a host.)
  const lastSegment = /\/([^/.]+)$/.exec(home.pathname)?.[1];
  installBase ??= new URL(lastSegment ? `./${lastSegment}/` : "./", home).toString();

  // The content directory: the most common prefix before /themes/<x>/ or /plugins/<x>/.
  const prefixes = new Map<string, number>();
  for (const resource of resources) {
    const match = /^(.*\/)(?:themes|plugins|mu-plugins)\/[^/]+\//.exec(resource.url.pathname);
    if (!match?.[1] || match[1].includes("/wp-includes/")) continue;
    prefixes.set(match[1], (prefixes.get(match[1]) ?? 0) + 1);
  }
  const defaultContent = new URL("wp-content/", installBase).toString();
  let contentBase = defaultContent;
  let best = 0;
  for (const [prefix, count] of prefixes) {
    if (count > best) {
      best = count;
      contentBase = new URL(prefix, origin).toString();
    }
  }
  return { origin, installBase, contentBase, customContent: contentBase !== defaultContent, restRoot };
}

const COMPONENT_SLUG = /^[a-z0-9][a-z0-9._-]{0,99}$/i;

/** A plugin or theme directory name as WordPress.org and premium vendors write them (some capitalised, like Divi). */
export function isComponentSlug(name: string): boolean {
  return COMPONENT_SLUG.test(name);
}

/**
 * Components whose files the page loads: slug → the URLs seen (at most 20 each), for the
 * given folders of the content directory (`plugins`, `mu-plugins`, `themes`). Assets served
 * from a CDN host keep WordPress's default layout (`…/wp-content/<folder>/<slug>/…`), so that
 * form counts on other hosts. On the site's own origin only the content directory counts:
 * a page of a WordPress under /blog/ that also loads /wp-content/… of another install at
 * the root must not credit that install's plugins to this one.
 */
export function componentAssets(
  homepage: HttpArtifact,
  paths: SitePaths,
  folders: readonly string[],
): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const prefixes = folders.map((folder) => new URL(`${folder}/`, paths.contentBase).pathname);
  const markers = folders.map((folder) => `/wp-content/${folder}/`);
  for (const resource of pageResources(pageOf(homepage), homepage.body, homepage.url)) {
    const path = resource.url.pathname;
    let rest: string | undefined;
    const prefix = prefixes.find((candidate) => path.startsWith(candidate));
    if (prefix && resource.url.origin === paths.origin) rest = path.slice(prefix.length);
    else if (resource.url.origin !== paths.origin) {
      const marker = markers.find((candidate) => path.includes(candidate));
      if (marker) rest = path.slice(path.indexOf(marker) + marker.length);
    }
    const slug = rest?.split("/")[0] ?? "";
    if (!rest?.includes("/") || !isComponentSlug(slug)) continue;
    const urls = found.get(slug) ?? [];
    if (urls.length < 20) urls.push(resource.url.toString());
    found.set(slug, urls);
  }
  return found;
}
