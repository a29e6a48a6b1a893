/** The security facts of a report: transport, headers, cookies, disclosure, XML-RPC, users, exposed files. */
import type { ExposedFile, SecurityInfo } from "../../../shared/report.ts";
import { probeAnswers } from "../artifacts.ts";
import { isDirectoryListing, parseDirectoryListing } from "../detect/directory-listing.ts";
import { LOGIN, oembedAuthor } from "../detect/users.ts";
import type { Detected, ListedDirectory } from "../facts.ts";
import { metaContents, pageOf } from "../parse/page.ts";
import { probeValues } from "../probe-keys.ts";
import { EXPOSED_FILES } from "../probe-kinds.ts";
import { siteText, siteUrl } from "../untrusted-text.ts";
import { isHtml, looksLikeNotFound } from "./soft-404.ts";

export const SECURITY_HEADERS = [
  "strict-transport-security",
  "content-security-policy",
  "x-frame-options",
  "x-content-type-options",
  "referrer-policy",
  "permissions-policy",
  "cross-origin-opener-policy",
] as const;

/** Content that proves a probed file is the real thing, by kind. */
const PROOF: Record<string, RegExp> = {
  debug_log: /PHP (?:Fatal error|Warning|Notice|Deprecated|Parse error)|^\[\d{2}-[A-Za-z]{3}-\d{4}/m,
  config_backup: /DB_(?:NAME|USER|PASSWORD)|table_prefix|define\s*\(\s*['"](?:AUTH|SECURE_AUTH)_KEY/,
  env_file:
    /^(?:export\s+)?[A-Z][A-Z0-9_]{1,60}\s*=.*$(?:\r?\n(?:#.*|\s*|(?:export\s+)?[A-Z][A-Z0-9_]{1,60}\s*=.*))*$/m,
  git: /^ref: refs\/|^[0-9a-f]{40}\s*$/m,
  // The installer's own form and "Let's go!" link, not any page that mentions setup-config.php
  // or has an element with id="setup": this kind skips the soft-404 guard (on a site not yet
  // installed, every URL — the 404 fingerprint and the homepage too — leads to the installer).
  installer: /name="weblog_title"|<form[^>]+id="setup"|setup-config\.php\?step=/,
  installer_log: /DUPLICATOR|PACKAGE INFO|INSTALLER LOG/i,
  backup_dir: /<title>Index of /i,
  emergency: /Emergency Password Reset/i,
  db_dump: /^(?:-- MySQL dump|-- MariaDB dump|CREATE TABLE|INSERT INTO|DROP TABLE|-- phpMyAdmin SQL Dump)/im,
};

const EXPOSED_KIND = new Map(EXPOSED_FILES.map((file) => [file.path, file.kind]));

function kindOfPath(path: string): string | undefined {
  for (const [suffix, kind] of EXPOSED_KIND) if (path.endsWith(`/${suffix}`) || path === suffix) return kind;
  return undefined;
}

function parseCookie(line: string) {
  const [pair = "", ...attributes] = line.split(";");
  const flags = attributes.map((attribute) => attribute.trim().toLowerCase());
  const sameSite = flags.find((flag) => flag.startsWith("samesite="))?.slice(9) ?? null;
  return {
    name: siteText(pair.split("=")[0]?.trim() ?? "", 100),
    secure: flags.includes("secure"),
    http_only: flags.includes("httponly"),
    same_site: sameSite ? siteText(sameSite, 20) : null,
  };
}

export function extractSecurity({ artifacts, users }: Detected): SecurityInfo {
  const { homepage, probes } = artifacts;
  const https = new URL(homepage.url).protocol === "https:";

  let httpToHttps: boolean | null = null;
  const plain = probes.http_redirect;
  if (https && plain) {
    const location = plain.headers.location ?? "";
    httpToHttps = plain.status >= 300 && plain.status < 400 && /^https:\/\//i.test(location.trim());
  }

  const exposed: ExposedFile[] = [];
  for (const [path, answer] of probeValues(probes, "exposed")) {
    const kind = kindOfPath(path);
    // While wp-config.php is missing, wp-load.php redirects every request to
    // wp-admin/setup-config.php: the installer is open to whoever gets there first.
    const location = answer.headers.location ?? "";
    if (kind === "installer" && answer.status >= 300 && answer.status < 400 && /setup-config\.php/i.test(location)) {
      const evidence = siteText(`Location: ${location}`, 120);
      exposed.push({ path, url: siteUrl(answer.url), kind, status: answer.status, evidence });
      continue;
    }
    if (!kind || (answer.status !== 200 && answer.status !== 206)) continue;
    if (
      kind !== "backup_dir" &&
      kind !== "installer" &&
      kind !== "emergency" &&
      isHtml(answer) &&
      looksLikeNotFound(answer, artifacts)
    )
      continue;
    const proof = PROOF[kind]?.exec(answer.body.slice(0, 64 * 1024));
    if (!proof) continue;
    exposed.push({ path, url: siteUrl(answer.url), kind, status: answer.status, evidence: siteText(proof[0], 120) });
  }
  // The homepage itself was redirected into the installer (a fresh, unconfigured install).
  const homePath = new URL(homepage.url).pathname;
  const setupPage = homepage.status === 200 ? PROOF.installer?.exec(homepage.body.slice(0, 64 * 1024)) : null;
  if (
    /\/wp-admin\/(?:setup-config|install)\.php$/.test(homePath) &&
    setupPage &&
    !exposed.some((f) => f.kind === "installer")
  ) {
    exposed.push({
      path: homePath,
      url: siteUrl(homepage.url),
      kind: "installer",
      status: homepage.status,
      evidence: siteText(setupPage[0], 120),
    });
  }
  const readme = probes.readme_html;
  if (
    readme?.status === 200 &&
    /WordPress/.test(readme.body) &&
    /<h1 id="logo"|Semantic Personal Publishing Platform/i.test(readme.body)
  ) {
    exposed.push({
      path: new URL(readme.url).pathname,
      url: siteUrl(readme.url),
      kind: "readme",
      status: 200,
      evidence: "WordPress readme.html",
    });
  }

  const listing: string[] = [];
  const folders = [probes.uploads, probes.plugins_listing, probes.themes_listing];
  for (const answer of [...folders, ...probeValues(probes, "exposed").map(([, value]) => value)]) {
    if (isDirectoryListing(answer)) listing.push(siteUrl(answer.url));
  }

  const methodsBody = probes.xmlrpc_methods?.status === 200 ? probes.xmlrpc_methods.body : "";
  const methods = /<methodResponse>/i.test(methodsBody)
    ? [...methodsBody.matchAll(/<string>([^<]{1,100})<\/string>/g)].map((m) => m[1] ?? "")
    : [];
  const xmlrpcEnabled =
    methods.length > 0 || /XML-RPC server accepts POST requests only/i.test(probes.xmlrpc_get?.body ?? "");

  const login = probes.login;
  const loginReachable = login?.status === 200 && /<form[^>]{1,1000}id=["']loginform["']/i.test(login.body);
  const generator = metaContents(pageOf(homepage), "generator").find((content) => /wordpress/i.test(content));
  return {
    https,
    // Stated only when it was asked: an ordinary report's security section is unchanged.
    ...(artifacts.tls_verification ? { tls_verification: artifacts.tls_verification } : {}),
    http_to_https_redirect: httpToHttps,
    hsts:
      https && homepage.headers["strict-transport-security"]
        ? siteText(homepage.headers["strict-transport-security"], 200)
        : null,
    headers: SECURITY_HEADERS.map((name) => ({
      name,
      value: homepage.headers[name] === undefined ? null : siteText(homepage.headers[name], 500),
    })),
    cookies: homepage.set_cookies.slice(0, 50).map(parseCookie),
    version_disclosure: {
      generator: generator ? siteText(generator, 100) : null,
      server:
        homepage.headers.server && /\d/.test(homepage.headers.server) ? siteText(homepage.headers.server, 100) : null,
      x_powered_by: homepage.headers["x-powered-by"] ? siteText(homepage.headers["x-powered-by"], 100) : null,
    },
    xmlrpc: {
      enabled: xmlrpcEnabled,
      methods: methods.length > 0 ? methods.length : null,
      multicall: methods.length > 0 ? methods.includes("system.multicall") : null,
      pingback: methods.length > 0 ? methods.includes("pingback.ping") : null,
    },
    user_enumeration: {
      rest_api: users.some((user) => user.sources.includes("rest_api")),
      author_archives: users.some((user) => user.sources.includes("author_archive")),
      // oEmbed discloses a login only through author_url (/author/<slug>/); author_name is a display name.
      oembed: LOGIN.test(oembedAuthor(probes.oembed)?.slug ?? ""),
      sitemap: users.some((user) => user.sources.includes("sitemap")),
      feed: users.some((user) => user.sources.includes("feed")),
    },
    users,
    exposed_files: exposed,
    directory_listing: [...new Set(listing)],
    login: {
      url: loginReachable && login ? siteUrl(login.url) : null,
      reachable: loginReachable,
      over_https: loginReachable && login ? new URL(login.url).protocol === "https:" : false,
    },
  };
}

/** The listed directories (security.directory_listing), each with what its listing shows. */
export function listedDirectories({ artifacts }: Detected, security: SecurityInfo): ListedDirectory[] {
  const answers = probeAnswers(artifacts);
  return security.directory_listing.map((url) => ({
    url,
    listing: parseDirectoryListing(answers.find((answer) => siteUrl(answer.url) === url)),
  }));
}
