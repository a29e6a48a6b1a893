/**
 * Is the site WordPress, and which core version? A pure function of the artifacts.
 *
 * Each signal has a likelihood of being right on its own; independent signals combine
 * into a 0–100 confidence (evidence.ts). A version is only taken from sources that state
 * WordPress's own version, and only when it has the shape of a WordPress release: minor
 * versions are single digits (4.9 was followed by 5.0) and x.y.0 is written x.y.
 * readme.html shows only the major version since 4.7, so it supports a full version
 * of the same branch rather than competing with it.
 */
import type { SiteLayout, WordPressInfo } from "../../../shared/report.ts";
import type { Artifacts, HttpArtifact } from "../artifacts.ts";
import { linksWithRel, metaContents, pageOf } from "../parse/page.ts";
import { pageResources } from "../parse/urls.ts";
import { siteText, siteUrl } from "../untrusted-text.ts";
import { confidenceOf, pickVersion, toEvidence, type WeightedEvidence } from "./evidence.ts";
import { isRestRoot, restNamespaces, restRootUrl } from "./rest.ts";
import type { SitePaths } from "./site-paths.ts";

const RELEASE = /^([1-9])\.(\d)(?:\.([1-9]\d?))?$/;
const DETECTED_AT = 50;

export function isPlausibleWordPressVersion(version: string): boolean {
  return RELEASE.test(version);
}

/** `ver=` on WordPress's own files (wp-includes, wp-admin) in a page. */
function coreAssetVersions(artifact: HttpArtifact, source: string, limit: number): WeightedEvidence[] {
  const signals: WeightedEvidence[] = [];
  const seen = new Set<string>();
  for (const resource of pageResources(pageOf(artifact), artifact.body, artifact.url)) {
    if (signals.length >= limit) break;
    const path = resource.url.pathname;
    if (!/\/wp-(?:includes|admin)\//.test(path) || seen.has(path)) continue;
    const version = resource.url.searchParams.get("ver");
    if (!version || !isPlausibleWordPressVersion(version)) continue;
    seen.add(path);
    signals.push({
      source,
      // The whole path: under a subdirectory install, /blog/wp-includes/… is where it was seen.
      value: siteText(`${path}?ver=${version}`, 200),
      weight: 0.5,
      version,
    });
  }
  return signals;
}

/** The report's account of the install's shape (detect/site-paths.ts): what was found, and how. */
export function siteLayout(paths: SitePaths): SiteLayout {
  const pathOf = (base: string) => siteText(new URL(base).pathname, 200);
  const origins = [...new Set(paths.assetBases.map((base) => new URL(base).origin))];
  return {
    home_url: siteUrl(paths.homeBase),
    core_path: paths.found.core.length > 0 ? pathOf(paths.coreBase) : null,
    content_path: paths.found.content.length > 0 ? pathOf(paths.contentBase) : null,
    asset_origins: origins.map(siteUrl),
    evidence: [
      ...paths.found.home,
      ...paths.found.core,
      ...paths.found.content,
      ...paths.assetBases.map((base) => ({ source: "asset_origin", value: siteText(base, 200) })),
    ],
  };
}

export function detectWordPress(artifacts: Artifacts, paths: SitePaths): WordPressInfo {
  const signals: WeightedEvidence[] = [];
  const { homepage, probes } = artifacts;
  const page = pageOf(homepage);

  const restHeader = /<([^>]+)>\s*;\s*rel="https:\/\/api\.w\.org\/"/.exec(homepage.headers.link ?? "");
  if (restHeader) signals.push({ source: "rest_link_header", value: siteText(restHeader[0]), weight: 0.95 });
  const restTag = linksWithRel(page, "https://api.w.org/")[0]?.attrs.href;
  if (restTag) signals.push({ source: "rest_link_tag", value: siteText(restTag), weight: 0.9 });

  for (const content of metaContents(page, "generator")) {
    const match = /^WordPress\s*(\S*)/i.exec(content.trim());
    if (!match) continue;
    const version = match[1] && isPlausibleWordPressVersion(match[1]) ? match[1] : undefined;
    signals.push({ source: "meta_generator", value: siteText(content), weight: 0.95, version });
  }

  const wpPath = pageResources(page, homepage.body, homepage.url).find((resource) =>
    /\/wp-(?:content|includes)\//.test(resource.url.pathname),
  );
  if (wpPath) signals.push({ source: "wp_paths", value: siteText(wpPath.url.toString(), 200), weight: 0.8 });
  signals.push(...coreAssetVersions(homepage, "core_asset_ver", 5));

  const feed = probes.feed;
  if (feed?.status === 200) {
    const rss = /<generator>\s*https?:\/\/wordpress\.org\/\?v=([^<\s]*)\s*<\/generator>/i.exec(feed.body);
    // Bounded `[^>]{0,500}`: with `[^>]*`, a 512 KB feed of unclosed "<generator " tags took
    // seconds of backtracking (test/analyzer/hostile/property.test.ts).
    const atom = /<generator[^>]{0,500}uri="https?:\/\/wordpress\.org\/?"[^>]{0,500}version="([^"]{0,50})"/i.exec(
      feed.body,
    );
    const found = rss ?? atom;
    if (found) {
      const version = found[1] && isPlausibleWordPressVersion(found[1]) ? found[1] : undefined;
      signals.push({
        source: rss ? "rss_generator" : "atom_generator",
        value: siteText(found[0]),
        url: siteUrl(feed.url),
        weight: 0.9,
        version,
      });
    }
  }

  if (isRestRoot(probes.rest_root) && restNamespaces(artifacts).includes("wp/v2")) {
    signals.push({
      source: "rest_api",
      value: "namespace wp/v2",
      url: siteUrl(restRootUrl(probes.rest_root.url)),
      weight: 0.95,
    });
  }

  const login = probes.login;
  if (login?.status === 200 && /<form[^>]{1,1000}id=["']loginform["']/i.test(login.body)) {
    signals.push({ source: "login_page", value: "wp-login.php login form", url: siteUrl(login.url), weight: 0.9 });
    signals.push(...coreAssetVersions(login, "login_asset_ver", 3));
  }

  const readme = probes.readme_html;
  let readmeBranch: string | undefined;
  if (
    readme?.status === 200 &&
    /WordPress/.test(readme.body) &&
    /<h1 id="logo"|Semantic Personal Publishing Platform/i.test(readme.body)
  ) {
    signals.push({ source: "readme_html", value: "readme.html", url: siteUrl(readme.url), weight: 0.8 });
    readmeBranch = /<br\s*\/?>\s*(?:Version|Versión|Versione)\s+(\d\.\d)/i.exec(readme.body)?.[1];
  }

  const xmlrpc = probes.xmlrpc_get;
  if (xmlrpc && /XML-RPC server accepts POST requests only/i.test(xmlrpc.body)) {
    signals.push({
      source: "xmlrpc",
      value: "XML-RPC server accepts POST requests only.",
      url: siteUrl(xmlrpc.url),
      weight: 0.7,
    });
  }

  // readme.html's "Version 6.1" backs a full version of that branch; alone it is the version.
  if (readmeBranch) {
    const full = pickVersion(signals).version;
    const version = full?.startsWith(`${readmeBranch}.`) || full === readmeBranch ? full : readmeBranch;
    signals.push({
      source: "readme_html_version",
      value: `Version ${readmeBranch}`,
      url: siteUrl(readme?.url),
      weight: 0.6,
      version: version ?? readmeBranch,
    });
  }

  const confidence = confidenceOf(signals);
  const { version, confidence: versionConfidence } = pickVersion(signals);
  const namespaces = restNamespaces(artifacts);
  const install = new URL(paths.homeBase).pathname;
  const content = new URL(paths.contentBase).pathname;
  const detected = confidence >= DETECTED_AT;
  const multisiteHint =
    /\/uploads\/sites\/\d+\/|\/blogs\.dir\//.test(homepage.body) || /wp-signup\.php/.test(login?.body ?? "");
  return {
    detected,
    confidence,
    version,
    version_confidence: versionConfidence,
    evidence: toEvidence(signals),
    rest_api_url: isRestRoot(probes.rest_root)
      ? siteUrl(restRootUrl(probes.rest_root.url))
      : paths.restRoot
        ? siteUrl(paths.restRoot)
        : null,
    rest_namespaces: namespaces.slice(0, 100),
    content_path: paths.customContent ? content : null,
    install_path: detected ? install : null,
    layout: detected ? siteLayout(paths) : null,
    multisite: multisiteHint ? true : null,
    latest_version: null,
    outdated: null,
    vulnerabilities: [],
  };
}
