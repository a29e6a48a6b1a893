/** What the homepage makes the browser fetch: blocking scripts, script and stylesheet counts, other hosts. */
import { resolveUrl } from "../../artifacts.ts";
import { siteUrl } from "../../untrusted-text.ts";
import { makeCheck } from "../catalogue.ts";
import type { Audit } from "../types.ts";
import { count } from "./format.ts";
import { countBySource } from "./sources.ts";

/**
 * Render-blocking scripts: Lighthouse flags every one. One or two (jQuery and jQuery
 * Migrate, the classic WordPress case) cost a round trip or two before the first paint, so
 * they warn; three or more fail.
 */
const BLOCKING_SCRIPTS_FAIL = 3;

/**
 * Script tags in the HTML. The median page makes ~24 JavaScript requests in all, late
 * third-party loads included (HTTP Archive Web Almanac 2024, Page Weight): more than 20
 * already in the HTML is above that typical page, more than 40 is the heavy tail. Our bounds.
 */
const SCRIPTS_WARN = 20;
const SCRIPTS_FAIL = 40;

/**
 * Stylesheets: core, a theme and a child theme need 2–5; each plugin that enqueues its own
 * CSS adds one, usually on every page. Over 10 is plugin CSS loaded where it isn't used;
 * over 20 is the heavy tail. Our bounds.
 */
const STYLESHEETS_WARN = 10;
const STYLESHEETS_FAIL = 20;

/**
 * Third-party hosts: each costs a DNS lookup and a TCP + TLS handshake before its first
 * byte (web.dev, "Establish network connections early"). Our bounds: more than 10 hosts is
 * seconds of connection set-up on a mobile network; more than 20 is the heavy tail.
 */
const THIRD_PARTY_WARN = 10;
const THIRD_PARTY_FAIL = 20;

export const auditRequests: Audit = ({ performance, homepage, paths }) => {
  const { page } = homepage;
  const checks = [];

  // render_blocking mixes scripts and stylesheets; the page's <script src> tell them apart.
  const scriptUrls = new Set(
    page.scripts.flatMap((script) => {
      const url = resolveUrl(script.src, homepage.url);
      return url ? [siteUrl(url.toString())] : [];
    }),
  );
  const blockingScripts = performance.render_blocking.filter((url) => scriptUrls.has(url));
  const blockingStyles = performance.render_blocking.length - blockingScripts.length;
  const styleNote = `${count(blockingStyles, "render-blocking stylesheet")} (normal for the CSS of the first paint)`;
  if (performance.render_blocking.length === 0) {
    checks.push(makeCheck("performance.render_blocking_scripts", "pass", "Nothing in <head> blocks rendering."));
  } else if (blockingScripts.length === 0) {
    checks.push(
      makeCheck(
        "performance.render_blocking_scripts",
        "pass",
        `No script in <head> blocks rendering; there ${blockingStyles === 1 ? "is" : "are"} ${styleNote}.`,
      ),
    );
  } else {
    checks.push(
      makeCheck(
        "performance.render_blocking_scripts",
        blockingScripts.length >= BLOCKING_SCRIPTS_FAIL ? "fail" : "warn",
        `${count(blockingScripts.length, "script")} in <head> without async or defer block${blockingScripts.length === 1 ? "s" : ""} rendering until downloaded and run; besides, ${styleNote}.`,
        blockingScripts,
      ),
    );
  }

  // The same resource list the facts counted, to say which plugin or theme the files come from.
  const bySource = (kind: string) =>
    countBySource(
      homepage.resources.filter((resource) => resource.kind === kind).map((resource) => resource.url),
      paths,
    );

  const scripts = performance.resources.scripts.count;
  const scriptStatus = scripts > SCRIPTS_FAIL ? "fail" : scripts > SCRIPTS_WARN ? "warn" : "pass";
  checks.push(
    makeCheck(
      "performance.script_count",
      scriptStatus,
      `The homepage HTML loads ${count(scripts, "external script")}${scriptStatus === "pass" ? "" : `, over ${scriptStatus === "fail" ? SCRIPTS_FAIL : SCRIPTS_WARN}`}.`,
      bySource("script"),
    ),
  );

  const styles = performance.resources.styles.count;
  const styleStatus = styles > STYLESHEETS_FAIL ? "fail" : styles > STYLESHEETS_WARN ? "warn" : "pass";
  checks.push(
    makeCheck(
      "performance.stylesheet_count",
      styleStatus,
      `The homepage HTML loads ${count(styles, "stylesheet")}${styleStatus === "pass" ? "" : `, over ${styleStatus === "fail" ? STYLESHEETS_FAIL : STYLESHEETS_WARN}`}.`,
      bySource("style"),
    ),
  );

  const hosts = performance.third_party_hosts;
  const hostStatus = hosts.length > THIRD_PARTY_FAIL ? "fail" : hosts.length > THIRD_PARTY_WARN ? "warn" : "pass";
  const hostMessage =
    hosts.length === 0
      ? "The homepage loads nothing from other hosts."
      : `The homepage loads resources from ${count(hosts.length, "other host")}${hostStatus === "pass" ? "" : `, over ${hostStatus === "fail" ? THIRD_PARTY_FAIL : THIRD_PARTY_WARN}`}.`;
  checks.push(makeCheck("performance.third_party_hosts", hostStatus, hostMessage, hosts));
  return checks;
};
