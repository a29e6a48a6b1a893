/**
 * The stack behind a site: web server, hosting platform, language, framework, CMS, site
 * builder, static site generator — from the homepage's headers, cookie names and page model.
 * It is what a report can say about a site that is not WordPress ("it runs on nginx, PHP
 * 8.2"), and context on one that is.
 *
 * Data-driven: the table is stack-rules.json (loaded and checked by stack-rules.ts), one row per
 * technology, each signal a header, cookie name, generator, <meta>, script, link or comment,
 * with the weight of that signal alone (combined with noisy-OR, as the other detectors do). The
 * signals are the ones fingerprinting tools (Wappalyzer, WhatWeb) use, written from the
 * frameworks' own defaults. This file is the matcher.
 *
 * Bounded on hostile input: headers, generators and names are capped before any regex sees
 * them, the regexes are anchored and have no nested quantifiers, and the HTML is only read
 * through the page model (already capped: 2 000 scripts and links, 2 KiB of inline script
 * read here), never scanned raw.
 */
import type { Evidence, HostingInfo, StackItem } from "../../../shared/report.ts";
import type { HomepageArtifact } from "../artifacts.ts";
import { metaContents, pageOf } from "../parse/page.ts";
import { siteText } from "../untrusted-text.ts";
import { confidenceOf, pickVersion, toEvidence, type WeightedEvidence } from "./evidence.ts";
import { type Signal, STACK_RULES, type StackRule } from "./stack-rules.ts";

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
