/**
 * Confirmation of the install's shape by what the probes got (detect/site-paths.ts): an answer
 * that can only come from the right place turns an assumed or inferred base into a confirmed
 * one, and checks judge misses only at confirmed places (audit/placement.ts).
 */
import type { Evidence } from "../../../shared/report.ts";
import type { Artifacts, HttpArtifact } from "../artifacts.ts";
import { probeKey } from "../probe-keys.ts";
import { siteUrl } from "../untrusted-text.ts";
import { isDirectoryListing } from "./directory-listing.ts";
import { looksLikeReadme, parseThemeHeader } from "./readme.ts";
import type { SiteBase, SitePaths } from "./site-paths.ts";

/** Evidence of a content path inferred from an asset origin: the pull zone's path, not the site's own. */
export const INFERRED_FROM_ASSET_ORIGIN = "content_asset_origin";

/**
 * True when `base` was seen on the site itself (not assumed, not only inferred from a CDN's
 * paths): a probe there that found nothing proves the thing is not there.
 */
export function placeConfirmed(paths: SitePaths, base: SiteBase): boolean {
  return paths.found[base].some((item) => item.source !== INFERRED_FROM_ASSET_ORIGIN);
}

/** Where a probe was asked: its first URL (before the redirects it followed). */
export function askedAt(answer: Pick<HttpArtifact, "url" | "redirects">): string {
  return answer.redirects?.[0]?.url ?? answer.url;
}

/** True when `answer` was asked at `path` under `base` (the place a probe of it belongs). */
export function askedAtPlace(answer: Pick<HttpArtifact, "url" | "redirects">, base: string, path: string): boolean {
  return askedAt(answer) === new URL(path, base).toString();
}

/**
 * Answers that can only come from the right place confirm an assumed or inferred base: the
 * XML-RPC server, the login form or the installer's page at the core base; the content
 * folders' empty index.php (or a listing), a plugin's readme or a theme's style.css at the
 * content base. Each answer counts only where it was asked (its first URL) is its place there.
 */
export function confirmByAnswers(paths: SitePaths, probes: Artifacts["probes"], found: Record<SiteBase, Evidence[]>) {
  const confirm = (
    base: "core" | "content",
    answer: HttpArtifact | undefined,
    path: string,
    value: string,
    /** Whether the answer proves the place (asked last: some read a whole body). */
    proves: (answer: HttpArtifact) => boolean,
  ) => {
    if (!answer || placeConfirmed(paths, base)) return;
    if (!askedAtPlace(answer, base === "core" ? paths.coreBase : paths.contentBase, path) || !proves(answer)) return;
    found[base].push({ source: `${base}_probe`, value, url: siteUrl(askedAt(answer)) });
  };

  const xmlrpc = probes.xmlrpc_methods;
  confirm(
    "core",
    xmlrpc,
    "xmlrpc.php",
    "xmlrpc.php answers as XML-RPC",
    (answer) => answer.status === 200 && /<methodResponse>/i.test(answer.body),
  );
  const xmlrpcGet = probes.xmlrpc_get;
  confirm("core", xmlrpcGet, "xmlrpc.php", "xmlrpc.php: XML-RPC server accepts POST requests only", (answer) =>
    /XML-RPC server accepts POST requests only/i.test(answer.body),
  );
  const login = probes.login;
  confirm(
    "core",
    login,
    "wp-login.php",
    "wp-login.php shows the login form",
    (answer) => answer.status === 200 && /<form[^>]{1,1000}id=["']loginform["']/i.test(answer.body),
  );
  const installer = probes[probeKey("exposed", new URL("wp-admin/install.php", paths.coreBase).pathname)];
  confirm(
    "core",
    installer,
    "wp-admin/install.php",
    "wp-admin/install.php answers as WordPress's installer",
    (answer) => answer.status === 200 && /<body[^>]{0,200}\bclass=["'][^"']{0,200}\bwp-core-ui\b/i.test(answer.body),
  );

  // plugins/ and themes/ ship an empty index.php: an empty 200 there (unlike the 404 page) is the folder.
  const notFound = probes.not_found;
  const emptyIndex = (answer: HttpArtifact) =>
    answer.status === 200 && answer.body.trim() === "" && !(notFound?.status === 200 && notFound.body.trim() === "");
  for (const key of ["plugins_listing", "themes_listing"] as const) {
    const answer = probes[key];
    const folder = key === "plugins_listing" ? "plugins/" : "themes/";
    confirm("content", answer, folder, `${folder} answers with WordPress's empty index.php`, emptyIndex);
    confirm("content", answer, folder, `${folder} lists its files`, isDirectoryListing);
  }
  const answers = (Object.entries(probes) as [string, HttpArtifact | undefined][]).sort(([a], [b]) =>
    a.localeCompare(b),
  );
  const readmes = probeKey("plugin_readme", "");
  const styles = probeKey("theme_style", "");
  for (const [key, answer] of answers) {
    if (answer?.status !== 200) continue;
    if (key.startsWith(readmes)) {
      const slug = key.slice(readmes.length);
      confirm("content", answer, `plugins/${slug}/readme.txt`, `a plugin's readme.txt: ${slug}`, (found) =>
        looksLikeReadme(found.body),
      );
    } else if (key.startsWith(styles)) {
      const slug = key.slice(styles.length);
      confirm("content", answer, `themes/${slug}/style.css`, `a theme's style.css: ${slug}`, (found) =>
        Boolean(parseThemeHeader(found.body)),
      );
    }
  }
}
