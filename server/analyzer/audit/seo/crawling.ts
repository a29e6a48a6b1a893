/** Can crawlers reach the site: robots.txt and XML sitemaps. */
import { resolveUrl } from "../../artifacts.ts";
import { siteUrl } from "../../untrusted-text.ts";
import { makeCheck } from "../catalogue.ts";
import type { Audit } from "../types.ts";

/**
 * robots.txt answers that make Google treat the whole site as disallowed: server errors and
 * 429 (Google Search Central, "How Google interprets the robots.txt specification").
 */
const blocksCrawling = (status: number) => status >= 500 || status === 429;

export const auditCrawling: Audit = ({ seo, probes }) => {
  const checks = [];
  const robots = probes.answers.robots;

  const robotsUrl = siteUrl(robots?.url);
  if (!robots) {
    const message = "robots.txt could not be fetched (see the report's errors).";
    checks.push(makeCheck("seo.robots_txt", "error", message));
    checks.push(makeCheck("seo.robots_txt_blocks_all", "error", message));
  } else if (seo.robots_txt.present) {
    checks.push(makeCheck("seo.robots_txt", "pass", "robots.txt is served.", [robotsUrl]));
    checks.push(
      seo.robots_txt.disallows_all
        ? makeCheck(
            "seo.robots_txt_blocks_all",
            "fail",
            "robots.txt disallows the whole site for all crawlers, Googlebot included: search engines may not crawl any page.",
            [robotsUrl],
          )
        : makeCheck("seo.robots_txt_blocks_all", "pass", "robots.txt lets crawlers reach the homepage.", [robotsUrl]),
    );
  } else if (blocksCrawling(robots.status)) {
    const evidence = [`${robots.status} ${robotsUrl}`];
    checks.push(makeCheck("seo.robots_txt", "fail", `robots.txt answers with status ${robots.status}.`, evidence));
    checks.push(
      makeCheck(
        "seo.robots_txt_blocks_all",
        "fail",
        `robots.txt answers with status ${robots.status}; while it does, Google treats the whole site as disallowed and stops crawling it.`,
        evidence,
      ),
    );
  } else {
    const what = robots.status === 200 ? "an HTML page instead of a text file" : `status ${robots.status}`;
    const evidence = [`${robots.status} ${robotsUrl}`];
    checks.push(
      makeCheck(
        "seo.robots_txt",
        "warn",
        `/robots.txt answers with ${what}. Crawlers then assume everything may be crawled, but the file cannot name a sitemap or keep them out of /wp-admin/.`,
        evidence,
      ),
    );
    checks.push(
      makeCheck("seo.robots_txt_blocks_all", "pass", "There is no robots.txt, so nothing is disallowed.", evidence),
    );
  }

  // Sitemaps: the places gather looked (wp-sitemap.xml, sitemap_index.xml, robots.txt's list).
  const found = seo.sitemaps.filter((sitemap) => sitemap.valid);
  const filled = found.filter((sitemap) => sitemap.entries > 0);
  const listing = (sitemap: (typeof seo.sitemaps)[number]) =>
    sitemap.valid ? `${sitemap.url} (${sitemap.entries} entries)` : `${sitemap.url} (status ${sitemap.status})`;
  if (filled.length > 0) {
    checks.push(makeCheck("seo.sitemap", "pass", "An XML sitemap is available.", filled.map(listing)));
  } else if (found.length > 0) {
    checks.push(makeCheck("seo.sitemap", "warn", "The XML sitemap lists no URLs.", found.map(listing)));
  } else if (seo.sitemaps.length === 0) {
    checks.push(makeCheck("seo.sitemap", "error", "No sitemap location could be fetched (see the report's errors)."));
  } else {
    checks.push(
      makeCheck(
        "seo.sitemap",
        "warn",
        "No XML sitemap was found at /wp-sitemap.xml, /sitemap_index.xml or in robots.txt.",
        seo.sitemaps.map(listing),
      ),
    );
  }

  if (!seo.robots_txt.present || !robots) {
    checks.push(makeCheck("seo.sitemap_in_robots", "skip", "There is no robots.txt to name a sitemap."));
    return checks;
  }
  if (seo.robots_txt.sitemaps.length === 0) {
    checks.push(
      makeCheck(
        "seo.sitemap_in_robots",
        "warn",
        "robots.txt names no sitemap (no “Sitemap:” line), so crawlers other than those you submit it to don't learn where it is.",
        [robotsUrl],
      ),
    );
    return checks;
  }
  // Listed sitemaps on the site's own origin were fetched (up to a cap); match them up.
  const probed = new Map(seo.sitemaps.map((sitemap) => [sitemap.url, sitemap]));
  const listed = seo.robots_txt.sitemaps.map((raw) => {
    const url = siteUrl(resolveUrl(raw, robots.url)?.toString() ?? raw);
    return { url, answer: probed.get(url) };
  });
  const checked = listed.filter((item) => item.answer !== undefined);
  if (checked.length > 0 && checked.every((item) => !item.answer?.valid)) {
    checks.push(
      makeCheck(
        "seo.sitemap_in_robots",
        "fail",
        "robots.txt names a sitemap that does not answer with a valid sitemap.",
        checked.map((item) => `${item.url} (status ${item.answer?.status ?? "none"})`),
      ),
    );
  } else {
    const unverified = checked.length === 0 ? " (on another host, so not fetched)" : "";
    checks.push(
      makeCheck(
        "seo.sitemap_in_robots",
        "pass",
        `robots.txt names ${listed.length === 1 ? "a sitemap" : `${listed.length} sitemaps`}${unverified}.`,
        listed.map((item) => item.url),
      ),
    );
  }
  return checks;
};
