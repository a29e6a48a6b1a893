/**
 * The stack behind a site: web server, hosting platform, language, framework, CMS, site
 * builder, static site generator — from the homepage's headers, cookie names and page model.
 * It is what a report can say about a site that is not WordPress ("it runs on nginx, PHP
 * 8.2"), and context on one that is.
 *
 * Data-driven: one row per technology, each signal a header, cookie name, generator,
 * <meta>, script, link or comment, with the weight of that signal alone (combined with
 * noisy-OR, as the other detectors do). The signals are the ones fingerprinting tools
 * (Wappalyzer, WhatWeb) use, written here from the frameworks' own defaults.
 *
 * Bounded on hostile input: headers, generators and names are capped before any regex sees
 * them, the regexes are anchored and have no nested quantifiers, and the HTML is only read
 * through the page model (already capped: 2 000 scripts and links, 2 KiB of inline script
 * read here), never scanned raw.
 */
import type { Evidence, HostingInfo, StackCategory, StackItem } from "../../../shared/report.ts";
import type { HomepageArtifact } from "../artifacts.ts";
import { metaContents, pageOf } from "../parse/page.ts";
import { siteText } from "../untrusted-text.ts";
import { confidenceOf, pickVersion, toEvidence, type WeightedEvidence } from "./evidence.ts";

type Signal =
  /** A response header; `value` may capture the version in group 1. No `value` = present at all. */
  | { header: string; value?: RegExp; weight: number }
  /** A cookie the homepage sets, by name. Only the name is reported, never the value (a session id). */
  | { cookie: RegExp; weight: number }
  /** <meta name="generator"> or the X-Generator header; group 1 = version. */
  | { generator: RegExp; weight: number }
  /** Another <meta> by name, content matching. */
  | { meta: string; content: RegExp; weight: number }
  /** A <script>: its src contains `src`, its id is `id`, an attribute is set, or its inline text starts with `inline`. */
  | { script: { src?: string; id?: string; attr?: [string, string]; inline?: string }; weight: number }
  /** A <link> whose href contains the text. */
  | { link: string; weight: number }
  /** An HTML comment containing the text. */
  | { comment: string; weight: number };

export interface StackRule {
  name: string;
  category: StackCategory;
  signals: readonly Signal[];
}

/** Version from a capture: digits and dots only. */
const V = "(\\d{1,4}(?:\\.\\d{1,5}){0,3})";
const re = (source: string) => new RegExp(source.replaceAll("{V}", V), "i");

export const STACK_RULES: readonly StackRule[] = [
  // Web servers (the Server header; a CDN's own Server value is left to the CDN rules)
  { name: "nginx", category: "web_server", signals: [{ header: "server", value: re("^nginx(?:/{V})?"), weight: 1 }] },
  {
    name: "Apache HTTP Server",
    category: "web_server",
    signals: [{ header: "server", value: re("^Apache(?![-\\w])(?:/{V})?"), weight: 1 }],
  },
  {
    name: "OpenResty",
    category: "web_server",
    signals: [{ header: "server", value: re("^openresty(?:/{V})?"), weight: 1 }],
  },
  {
    name: "LiteSpeed",
    category: "web_server",
    signals: [
      { header: "server", value: re("^LiteSpeed"), weight: 1 },
      { header: "x-turbo-charged-by", value: re("^LiteSpeed"), weight: 0.9 },
    ],
  },
  {
    name: "Microsoft IIS",
    category: "web_server",
    signals: [{ header: "server", value: re("^Microsoft-IIS(?:/{V})?"), weight: 1 }],
  },
  { name: "Caddy", category: "web_server", signals: [{ header: "server", value: re("^Caddy"), weight: 1 }] },
  {
    name: "Apache Tomcat",
    category: "web_server",
    signals: [{ header: "server", value: re("^(?:Apache-Coyote|Apache Tomcat)(?:/{V})?"), weight: 0.9 }],
  },
  { name: "Kestrel", category: "web_server", signals: [{ header: "server", value: re("^Kestrel"), weight: 1 }] },
  {
    name: "Gunicorn",
    category: "web_server",
    signals: [{ header: "server", value: re("^gunicorn(?:/{V})?"), weight: 1 }],
  },
  { name: "Uvicorn", category: "web_server", signals: [{ header: "server", value: re("^uvicorn"), weight: 1 }] },
  {
    name: "Werkzeug",
    category: "web_server",
    signals: [{ header: "server", value: re("^Werkzeug(?:/{V})?"), weight: 1 }],
  },
  {
    name: "Phusion Passenger",
    category: "web_server",
    signals: [
      { header: "server", value: re("Phusion[ _]Passenger(?:[ /]{V})?"), weight: 0.9 },
      { header: "x-powered-by", value: re("Phusion[ _]Passenger(?:[ /]{V})?"), weight: 0.9 },
    ],
  },
  { name: "Jetty", category: "web_server", signals: [{ header: "server", value: re("^Jetty(?:\\({V})?"), weight: 1 }] },

  // Hosting platforms
  {
    name: "Vercel",
    category: "hosting",
    signals: [
      { header: "x-vercel-id", weight: 0.95 },
      { header: "server", value: re("^Vercel"), weight: 0.95 },
    ],
  },
  {
    name: "Netlify",
    category: "hosting",
    signals: [
      { header: "x-nf-request-id", weight: 0.95 },
      { header: "server", value: re("^Netlify"), weight: 0.95 },
    ],
  },
  {
    name: "GitHub Pages",
    category: "hosting",
    signals: [
      { header: "server", value: re("^GitHub\\.com"), weight: 0.95 },
      { header: "x-github-request-id", weight: 0.6 },
    ],
  },
  { name: "Amazon S3", category: "hosting", signals: [{ header: "server", value: re("^AmazonS3"), weight: 0.95 }] },
  {
    name: "Google Cloud",
    category: "hosting",
    signals: [{ header: "server", value: re("^Google Frontend"), weight: 0.9 }],
  },

  // Languages
  {
    name: "PHP",
    category: "language",
    signals: [
      { header: "x-powered-by", value: re("\\bPHP(?:/{V})?"), weight: 1 },
      // Older Apache setups name PHP in the Server header: "Apache/2.4.6 (CentOS) PHP/7.4.33".
      { header: "server", value: re("\\bPHP/{V}"), weight: 1 },
      { cookie: /^PHPSESSID$/i, weight: 0.9 },
    ],
  },
  {
    name: "Python",
    category: "language",
    signals: [{ header: "server", value: re("\\bPython/{V}"), weight: 1 }],
  },
  {
    name: "Java",
    category: "language",
    signals: [
      { cookie: /^JSESSIONID$/i, weight: 0.8 },
      { header: "x-powered-by", value: re("^(?:Servlet|JSP)"), weight: 0.8 },
    ],
  },

  // Frameworks
  {
    name: "Express",
    category: "framework",
    signals: [
      { header: "x-powered-by", value: re("^Express$"), weight: 1 },
      { cookie: /^connect\.sid$/i, weight: 0.8 },
    ],
  },
  {
    name: "Next.js",
    category: "framework",
    signals: [
      { header: "x-powered-by", value: re("^Next\\.js(?: {V})?"), weight: 1 },
      { header: "x-nextjs-cache", weight: 0.9 },
      { header: "x-nextjs-prerender", weight: 0.9 },
      { script: { id: "__NEXT_DATA__" }, weight: 0.95 },
      { script: { src: "/_next/static/" }, weight: 0.9 },
      { link: "/_next/static/", weight: 0.9 },
    ],
  },
  {
    name: "Nuxt",
    category: "framework",
    signals: [
      { header: "x-powered-by", value: re("^Nuxt"), weight: 1 },
      { script: { id: "__NUXT_DATA__" }, weight: 0.95 },
      { script: { inline: "window.__NUXT__" }, weight: 0.95 },
      { script: { src: "/_nuxt/" }, weight: 0.9 },
      { link: "/_nuxt/", weight: 0.9 },
    ],
  },
  {
    name: "Django",
    category: "framework",
    signals: [
      // Django's CSRF cookie name; a few other frameworks borrowed it, hence not certain.
      { cookie: /^csrftoken$/i, weight: 0.7 },
      { cookie: /^django_language$/i, weight: 0.9 },
    ],
  },
  {
    name: "Ruby on Rails",
    category: "framework",
    signals: [
      { cookie: /^_rails_session$/i, weight: 0.9 },
      { meta: "csrf-param", content: /^authenticity_token$/, weight: 0.9 },
      // Rack's request timer; alone it only hints at Ruby.
      { header: "x-runtime", value: /^\d{1,4}\.\d{1,9}$/, weight: 0.4 },
    ],
  },
  {
    name: "Laravel",
    category: "framework",
    signals: [
      { cookie: /^laravel_session$/i, weight: 0.95 },
      // Laravel sets it by default, but Angular apps use the same name.
      { cookie: /^XSRF-TOKEN$/, weight: 0.4 },
    ],
  },
  {
    name: "CodeIgniter",
    category: "framework",
    signals: [{ cookie: /^ci_session$/i, weight: 0.9 }],
  },
  {
    name: "ASP.NET",
    category: "framework",
    signals: [
      { header: "x-aspnet-version", value: re("^{V}"), weight: 1 },
      { header: "x-powered-by", value: re("^ASP\\.NET"), weight: 1 },
      { header: "x-aspnetmvc-version", weight: 1 },
      { cookie: /^ASP\.NET_SessionId$/i, weight: 0.95 },
      { cookie: /^\.AspNetCore\./i, weight: 0.95 },
    ],
  },

  // CMS
  {
    name: "Drupal",
    category: "cms",
    signals: [
      { generator: re("^Drupal(?: {V})?"), weight: 1 },
      { header: "x-drupal-cache", weight: 1 },
      { header: "x-drupal-dynamic-cache", weight: 1 },
      { script: { attr: ["data-drupal-selector", "drupal-settings-json"] }, weight: 0.95 },
      { script: { src: "/misc/drupal.js" }, weight: 0.9 },
    ],
  },
  {
    name: "Joomla",
    category: "cms",
    signals: [
      { generator: re("^Joomla!?(?: {V})?"), weight: 1 },
      { script: { src: "/media/jui/js/" }, weight: 0.8 },
      { script: { src: "/media/system/js/core" }, weight: 0.7 },
    ],
  },
  {
    name: "Ghost",
    category: "cms",
    signals: [
      { generator: re("^Ghost(?: {V})?"), weight: 1 },
      { header: "x-ghost-cache-status", weight: 0.95 },
    ],
  },
  { name: "TYPO3", category: "cms", signals: [{ generator: re("^TYPO3(?: CMS)?(?: {V})?"), weight: 1 }] },
  {
    name: "Craft CMS",
    category: "cms",
    signals: [{ header: "x-powered-by", value: re("^Craft CMS"), weight: 1 }],
  },

  // Site builders and hosted platforms
  {
    name: "Shopify",
    category: "site_builder",
    signals: [
      { header: "x-shopid", weight: 1 },
      { header: "x-shopify-stage", weight: 1 },
      { header: "powered-by", value: re("^Shopify"), weight: 1 },
      { script: { src: "cdn.shopify.com/" }, weight: 0.9 },
      { link: "cdn.shopify.com/", weight: 0.9 },
    ],
  },
  {
    name: "Wix",
    category: "site_builder",
    signals: [
      { header: "x-wix-request-id", weight: 1 },
      { generator: re("^Wix\\.com"), weight: 1 },
      { script: { src: "static.parastorage.com/" }, weight: 0.9 },
    ],
  },
  {
    name: "Squarespace",
    category: "site_builder",
    signals: [
      { header: "server", value: re("^Squarespace"), weight: 1 },
      { comment: "This is Squarespace.", weight: 1 },
      { script: { src: "static1.squarespace.com/" }, weight: 0.9 },
      { link: "static1.squarespace.com/", weight: 0.9 },
    ],
  },
  { name: "Webflow", category: "site_builder", signals: [{ generator: re("^Webflow"), weight: 1 }] },

  // Static site generators (they sign the page with a generator tag)
  { name: "Hugo", category: "static_site_generator", signals: [{ generator: re("^Hugo(?: {V})?"), weight: 1 }] },
  {
    name: "Jekyll",
    category: "static_site_generator",
    signals: [{ generator: re("^Jekyll(?: v{V})?"), weight: 1 }],
  },
  {
    name: "Eleventy",
    category: "static_site_generator",
    signals: [{ generator: re("^Eleventy(?: v{V})?"), weight: 1 }],
  },
  { name: "Hexo", category: "static_site_generator", signals: [{ generator: re("^Hexo(?: {V})?"), weight: 1 }] },
  {
    name: "Gatsby",
    category: "static_site_generator",
    signals: [{ generator: re("^Gatsby(?: {V})?"), weight: 1 }],
  },
  {
    name: "Astro",
    category: "static_site_generator",
    signals: [{ generator: re("^Astro(?: v{V})?"), weight: 1 }],
  },
  {
    name: "Docusaurus",
    category: "static_site_generator",
    signals: [{ generator: re("^Docusaurus(?: v{V})?"), weight: 1 }],
  },
  {
    name: "MkDocs",
    category: "static_site_generator",
    signals: [{ generator: re("^mkdocs-{V}"), weight: 1 }],
  },
  {
    name: "Pelican",
    category: "static_site_generator",
    signals: [{ generator: re("^Pelican"), weight: 1 }],
  },
  {
    name: "VuePress",
    category: "static_site_generator",
    signals: [{ generator: re("^VuePress(?: {V})?"), weight: 1 }],
  },
];

/** Below this a technology is not reported: one weak hint (an XSRF-TOKEN cookie) is not enough. */
export const MIN_STACK_CONFIDENCE = 50;

/** Caps on what the rules read: values are capped before any regex runs. */
const MAX_VALUE = 200;
const MAX_COOKIES = 50;
const MAX_GENERATORS = 10;
const MAX_INLINE_READ = 2_048;

/** What the rules read, taken from the homepage once. */
interface Inputs {
  headers: Record<string, string>;
  cookies: string[];
  generators: { value: string; source: string }[];
  metas: { name: string; content: string }[];
  scripts: { src: string; id: string; attrs: Record<string, string>; inline: string }[];
  links: string[];
  comments: string[];
}

function inputsOf(homepage: HomepageArtifact): Inputs {
  const page = pageOf(homepage);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(homepage.headers)) headers[name] = siteText(value, MAX_VALUE);
  const cookies = homepage.set_cookies
    .slice(0, MAX_COOKIES)
    .map((cookie) => siteText(cookie.slice(0, Math.max(0, cookie.indexOf("="))), 100))
    .filter(Boolean);
  const generators = [
    ...metaContents(page, "generator").map((value) => ({ value, source: "meta_generator" })),
    ...(homepage.headers["x-generator"] ? [{ value: homepage.headers["x-generator"], source: "header" }] : []),
  ]
    .slice(0, MAX_GENERATORS)
    .map(({ value, source }) => ({ value: siteText(value, MAX_VALUE), source }));
  return {
    headers,
    cookies,
    generators,
    metas: page.metas.map((meta) => ({
      name: (meta.attrs.name ?? "").toLowerCase(),
      content: siteText(meta.attrs.content, MAX_VALUE),
    })),
    scripts: page.scripts.map((script) => ({
      src: script.src ?? "",
      id: script.attrs.id ?? "",
      attrs: script.attrs,
      inline: script.text.slice(0, MAX_INLINE_READ).trimStart(),
    })),
    links: page.links.map((link) => link.attrs.href ?? ""),
    comments: page.comments,
  };
}

/** Version from group 1, when it looks like one. */
function versionOf(match: RegExpExecArray | null): string | undefined {
  const version = match?.[1];
  return version && /^\d{1,4}(?:\.\d{1,5}){0,3}$/.test(version) ? version : undefined;
}

/** The evidence one signal finds on the homepage, if any. */
function find(signal: Signal, inputs: Inputs): WeightedEvidence | undefined {
  const { weight } = signal;
  if ("header" in signal) {
    const value = inputs.headers[signal.header];
    if (value === undefined) return undefined;
    const evidence = { source: "header", value: `${signal.header}: ${value}`, weight };
    if (!signal.value) return evidence;
    const match = signal.value.exec(value);
    return match ? { ...evidence, version: versionOf(match) } : undefined;
  }
  if ("cookie" in signal) {
    const name = inputs.cookies.find((cookie) => signal.cookie.test(cookie));
    return name ? { source: "cookie", value: name, weight } : undefined;
  }
  if ("generator" in signal) {
    for (const { value, source } of inputs.generators) {
      const match = signal.generator.exec(value);
      if (match)
        return {
          source,
          value: source === "header" ? `x-generator: ${value}` : value,
          weight,
          version: versionOf(match),
        };
    }
    return undefined;
  }
  if ("meta" in signal) {
    const meta = inputs.metas.find((item) => item.name === signal.meta && signal.content.test(item.content));
    return meta ? { source: "meta", value: `${signal.meta}: ${meta.content}`, weight } : undefined;
  }
  if ("script" in signal) {
    const { src, id, attr, inline } = signal.script;
    const script = inputs.scripts.find(
      (item) =>
        (src !== undefined && item.src.includes(src)) ||
        (id !== undefined && item.id === id) ||
        (attr !== undefined && item.attrs[attr[0]] === attr[1]) ||
        (inline !== undefined && item.inline.startsWith(inline)),
    );
    if (!script) return undefined;
    const value = script.src
      ? siteText(script.src, MAX_VALUE)
      : id
        ? `<script id="${id}">`
        : attr
          ? `<script ${attr[0]}="${attr[1]}">`
          : `inline script: ${inline}`;
    return { source: "script", value, weight };
  }
  if ("link" in signal) {
    const href = inputs.links.find((item) => item.includes(signal.link));
    return href ? { source: "link", value: siteText(href, MAX_VALUE), weight } : undefined;
  }
  const comment = inputs.comments.find((item) => item.includes(signal.comment));
  return comment ? { source: "html_comment", value: siteText(comment, MAX_VALUE), weight } : undefined;
}

/** Everything in STACK_RULES the homepage shows, in the table's order. */
export function detectStack(homepage: HomepageArtifact, rules: readonly StackRule[] = STACK_RULES): StackItem[] {
  const inputs = inputsOf(homepage);
  const items: StackItem[] = [];
  for (const rule of rules) {
    const found = rule.signals.flatMap((signal) => find(signal, inputs) ?? []);
    const confidence = confidenceOf(found);
    if (found.length === 0 || confidence < MIN_STACK_CONFIDENCE) continue;
    items.push({
      name: rule.name,
      category: rule.category,
      version: pickVersion(found).version,
      confidence,
      evidence: toEvidence(found),
    });
  }
  return items;
}

/** "nginx 1.22.1, PHP 8.2.36, Laravel": the stack in a few words, for people. */
export function describeStack(stack: readonly StackItem[]): string {
  return stack.map((item) => (item.version ? `${item.name} ${item.version}` : item.name)).join(", ");
}

/** The stack entry for the CDN detect/hosting.ts found, with the evidence that named it. */
export function cdnItem(name: string, evidence: Evidence): StackItem {
  return { name, category: "cdn", version: null, confidence: 95, evidence: [evidence] };
}

/**
 * The report's plain statement about a site that is not WordPress (an errors[] entry of
 * kind `not_wordpress`: the WordPress part of the report could not be produced), naming
 * what it runs on instead.
 */
export function notWordPressNotice(confidence: number, hosting: Pick<HostingInfo, "stack">) {
  const stack = hosting.stack ?? [];
  const runsOn = stack.length > 0 ? `it runs on ${describeStack(stack)}` : "what it runs on could not be identified";
  return {
    stage: "detect",
    kind: "not_wordpress",
    message: `This site does not look like WordPress (confidence ${confidence}%); ${runsOn}. The performance, SEO and security checks that apply to any site ran; the WordPress-specific ones were skipped.`,
  };
}
