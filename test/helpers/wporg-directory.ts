/**
 * A local stand-in for WordPress.org's directory API, speaking its real format (checked
 * against the plugin directory's query_plugins route and the 1.2 info API):
 *
 *   GET /plugins/info/1.2/?action=query_plugins&request[browse]=updated&request[page]=N&request[per_page]=M
 *     → { "info": { "page": N, "pages": P, "results": R }, "plugins": [ { "name", "slug", "version",
 *         "author", …, "active_installs", "last_updated": "2024-05-14 2:37pm GMT", "added", … } ] }
 *   GET /themes/info/1.2/?action=query_themes&…  → { "info": {…}, "themes": [ { "name", "slug", "version",
 *         "preview_url", "author", …, "last_updated": "2024-05-14", "last_updated_time": "2024-05-14 14:37:00" } ] }
 *   GET /plugins/info/1.2/?action=plugin_information&request[slug]=…  → { "name", "slug", "version", … } or 404
 *   GET /core/version-check/1.7/  → { "offers": [ { "version", … } ] }
 *
 * `request[fields][<field>]=0` drops a field as the real API does; names carry HTML entities
 * as the real ones do ("All in One SEO &#8211; …"). Pages beyond 999 answer page 999. The
 * listing is ordered newest first (browse=updated). Tests change `plugins`/`themes`, set an
 * ETag, or make a page fail.
 */
import type { DirectoryAnswer, NameLookup, NameQuery } from "../../server/analyzer/detect/finders/directory.ts";
import { nameKeysOf } from "../../server/analyzer/detect/finders/name-keys.ts";
import { decodeEntities } from "../../server/intel/directory/entries.ts";

export interface DirectoryEntryFixture {
  slug: string;
  /** As the directory writes it (entities included). */
  name: string;
  version?: string;
  installs?: number;
  updated: Date;
}

export interface DirectoryStub {
  url: string;
  plugins: DirectoryEntryFixture[];
  themes: DirectoryEntryFixture[];
  /** Request paths with their query, in order. */
  hits: string[];
  /** When set, the first page of a listing carries it and answers 304 to If-None-Match. */
  etag: string | null;
  /** A page number that answers 500 (both listings), or null. */
  failPage: number | null;
  stop(): void;
}

/** "2024-05-14 2:37pm GMT", as query_plugins writes last_updated. */
export function pluginDate(date: Date): string {
  const hours = date.getUTCHours();
  const hour12 = hours % 12 === 0 ? 12 : hours % 12;
  return `${date.toISOString().slice(0, 10)} ${hour12}:${String(date.getUTCMinutes()).padStart(2, "0")}${hours < 12 ? "am" : "pm"} GMT`;
}

/** A plugin as query_plugins lists it, every default field present. */
export function pluginRecord(entry: DirectoryEntryFixture): Record<string, unknown> {
  return {
    name: entry.name,
    slug: entry.slug,
    version: entry.version ?? "1.0.0",
    author: `<a href="https://example.org/">${entry.name} Team</a>`,
    author_profile: `https://profiles.wordpress.org/${entry.slug}team/`,
    requires: "6.0",
    tested: "6.5.3",
    requires_php: "7.4",
    requires_plugins: [],
    rating: 92,
    ratings: { 5: 120, 4: 10, 3: 3, 2: 1, 1: 4 },
    num_ratings: 138,
    support_threads: 12,
    support_threads_resolved: 9,
    active_installs: entry.installs ?? 1_000,
    downloaded: (entry.installs ?? 1_000) * 7,
    last_updated: pluginDate(entry.updated),
    added: "2016-03-01",
    homepage: `https://example.org/${entry.slug}/`,
    short_description: `${entry.name} does what it says.`,
    description: `<p>${entry.name} does what it says, at length.</p>`.repeat(5),
    download_link: `https://downloads.wordpress.org/plugin/${entry.slug}.${entry.version ?? "1.0.0"}.zip`,
    tags: { tools: "tools", utilities: "utilities" },
    donate_link: "",
    icons: { "1x": `https://ps.w.org/${entry.slug}/assets/icon-128x128.png`, default: "" },
  };
}

/** A theme as query_themes lists it. */
export function themeRecord(entry: DirectoryEntryFixture): Record<string, unknown> {
  return {
    name: entry.name,
    slug: entry.slug,
    version: entry.version ?? "1.0",
    preview_url: `https://wp-themes.com/${entry.slug}/`,
    author: { user_nicename: `${entry.slug}team`, display_name: `${entry.name} Team` },
    screenshot_url: `//ts.w.org/wp-content/themes/${entry.slug}/screenshot.png`,
    rating: 90,
    num_ratings: 40,
    homepage: `https://wordpress.org/themes/${entry.slug}/`,
    description: `${entry.name} is a theme.`,
    requires: "6.0",
    requires_php: "7.4",
    active_installs: entry.installs ?? 1_000,
    last_updated: entry.updated.toISOString().slice(0, 10),
    last_updated_time: entry.updated.toISOString().slice(0, 19).replace("T", " "),
  };
}

/** One page of a listing in the API's format, newest first, with `fields[x]=0` dropped. */
export function listingPage(
  type: "plugin" | "theme",
  entries: readonly DirectoryEntryFixture[],
  page: number,
  perPage: number,
  fieldsOff: ReadonlySet<string> = new Set(),
): Record<string, unknown> {
  const sorted = [...entries].sort((a, b) => b.updated.getTime() - a.updated.getTime() || a.slug.localeCompare(b.slug));
  const pages = Math.ceil(sorted.length / perPage);
  const current = Math.max(1, Math.min(page, 999, Math.max(pages, 1)));
  const records = sorted.slice((current - 1) * perPage, current * perPage).map((entry) => {
    const record = type === "plugin" ? pluginRecord(entry) : themeRecord(entry);
    for (const field of fieldsOff) delete record[field];
    return record;
  });
  return {
    info: { page: current, pages, results: sorted.length },
    [type === "plugin" ? "plugins" : "themes"]: records,
  };
}

export function startDirectoryStub(
  plugins: DirectoryEntryFixture[] = [],
  themes: DirectoryEntryFixture[] = [],
): DirectoryStub {
  const stub: DirectoryStub = {
    url: "",
    plugins,
    themes,
    hits: [],
    etag: null,
    failPage: null,
    stop: () => server.stop(true),
  };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const url = new URL(request.url);
      stub.hits.push(`${url.pathname}${url.search}`);
      const action = url.searchParams.get("action");
      if (url.pathname === "/core/version-check/1.7/") {
        return Response.json({
          offers: [{ response: "upgrade", version: "6.8.3", current: "6.8.3", locale: "en_US" }],
        });
      }
      const type =
        url.pathname === "/plugins/info/1.2/" ? "plugin" : url.pathname === "/themes/info/1.2/" ? "theme" : null;
      if (!type) return new Response("not found", { status: 404 });
      const entries = type === "plugin" ? stub.plugins : stub.themes;
      if (action === "plugin_information" || action === "theme_information") {
        const found = entries.find((entry) => entry.slug === url.searchParams.get("request[slug]"));
        if (!found)
          return Response.json({ error: `${type === "plugin" ? "Plugin" : "Theme"} not found.` }, { status: 404 });
        return Response.json(type === "plugin" ? pluginRecord(found) : themeRecord(found));
      }
      if (action !== (type === "plugin" ? "query_plugins" : "query_themes")) {
        return Response.json({ error: "Action not implemented." }, { status: 400 });
      }
      const page = Number(url.searchParams.get("request[page]") ?? 1);
      const perPage = Math.min(250, Number(url.searchParams.get("request[per_page]") ?? 24));
      if (stub.failPage === page) return new Response("<h1>502 Bad Gateway</h1>", { status: 502 });
      if (stub.etag && page === 1 && request.headers.get("if-none-match") === stub.etag) {
        return new Response(null, { status: 304, headers: { etag: stub.etag } });
      }
      const fieldsOff = new Set<string>();
      for (const [key, value] of url.searchParams) {
        const field = /^request\[fields\]\[([a-z_]+)\]$/.exec(key)?.[1];
        if (field && (value === "0" || value === "false")) fieldsOff.add(field);
      }
      const headers: Record<string, string> = stub.etag && page === 1 ? { etag: stub.etag } : {};
      return Response.json(listingPage(type, entries, page, perPage, fieldsOff), { headers });
    },
  });
  stub.url = `http://127.0.0.1:${server.port}`;
  return stub;
}

/**
 * The plugins the detection tests' sites credit, as the directory names them (marketing
 * names, entities and all), with similar-sounding neighbours to make names ambiguous, and
 * names every site shows that must not become plugins.
 */
export function directoryFixture(now = new Date("2026-11-20T10:00:00Z")): {
  plugins: DirectoryEntryFixture[];
  themes: DirectoryEntryFixture[];
} {
  let minutes = 0;
  const at = () => {
    // Nine hours apart: the listing spans days, as the real one does.
    minutes += 9 * 60 + 7;
    return new Date(now.getTime() - minutes * 60_000);
  };
  const plugin = (slug: string, name: string, installs: number): DirectoryEntryFixture => ({
    slug,
    name,
    installs,
    updated: at(),
  });
  return {
    plugins: [
      plugin("wordpress-seo", "Yoast SEO", 10_000_000),
      plugin("seo-by-rank-math", "Rank Math SEO &#8211; AI SEO Tools to Dominate SEO Rankings", 2_000_000),
      plugin(
        "all-in-one-seo-pack",
        "All in One SEO &#8211; Powerful SEO Plugin to Boost SEO Rankings &amp; Increase Traffic",
        3_000_000,
      ),
      plugin(
        "google-analytics-for-wordpress",
        "MonsterInsights &#8211; Google Analytics Dashboard for WordPress (Website Stats Made Easy)",
        3_000_000,
      ),
      plugin("w3-total-cache", "W3 Total Cache", 1_000_000),
      plugin("litespeed-cache", "LiteSpeed Cache", 6_000_000),
      plugin("elementor", "Elementor Website Builder &#8211; More Than Just a Page Builder", 10_000_000),
      plugin("woocommerce", "WooCommerce", 7_000_000),
      plugin("jetpack", "Jetpack &#8211; WP Security, Backup, Speed, &amp; Growth", 4_000_000),
      plugin("google-site-kit", "Site Kit by Google &#8211; Analytics, Search Console, AdSense, Speed", 4_000_000),
      plugin("instagram-feed", "Smash Balloon Social Photo Feed &#8211; Easy Social Feeds Plugin", 1_000_000),
      plugin("contact-form-7", "Contact Form 7", 10_000_000),
      plugin(
        "wpforms-lite",
        "WPForms &#8211; Easy Form Builder for WordPress &#8211; Contact Forms, Payment Forms, Surveys, &amp; More",
        6_000_000,
      ),
      plugin("redis-cache", "Redis Object Cache", 200_000),
      plugin("comet-cache", "Comet Cache", 20_000),
      plugin("cookie-notice", "Cookie Notice &amp; Compliance for GDPR / CCPA", 1_000_000),
      plugin("simple-share-buttons-adder", "Simple Share Buttons Adder", 20_000),
      plugin("wp-meteor", "Speed Optimizer &#8211; WP Meteor", 20_000),
      plugin("adrotate", "AdRotate Banner Manager &#8211; The only ad manager you&#8217;ll need", 30_000),
      plugin("flavor-slider", "Flavor Slider", 3_000),
      plugin("tidy-tables", "Tidy Tables", 8_000),
      plugin("breeze-forms", "Breeze Forms", 2_000),
      plugin("reading-time-wp", "Reading Time WP", 30_000),
      plugin("quick-faq", "Quick FAQ", 6_000),
      plugin("redux-framework", "Redux Framework", 1_000_000),
      plugin("redux-converter", "Redux Converter", 2_000),
      plugin("easy-fancybox", "Easy FancyBox &#8211; WordPress Lightbox Plugin", 300_000),
      plugin("fancybox", "FancyBox", 2_000),
      plugin("wp-statistics", "WP Statistics &#8211; Simple, privacy-friendly Google Analytics alternative", 600_000),
      plugin("wp-google-analytics-events", "WP Google Analytics Events", 20_000),
      plugin("schema-and-structured-data-for-wp", "Schema &amp; Structured Data for WP &amp; AMP", 100_000),
      // Neighbours sharing a short name: neither wins on installs.
      plugin("smart-slider-lite", "Smart Slider &#8211; Lite edition", 5_000),
      plugin("smart-slider-pro-addon", "Smart Slider &#8211; Pro add-on", 4_000),
      // Names a page may show for other reasons.
      plugin("google-analytics-dashboard", "Google Analytics", 50_000),
      plugin("gtm-basic", "Google Tag Manager", 40_000),
      plugin("meta-pixel-basic", "Meta Pixel", 10_000),
      plugin("jquery-updater", "jQuery Updater", 40_000),
      plugin("gallery", "Gallery", 1_000),
      plugin("font-awesome", "Font Awesome", 700_000),
      plugin("owl-carousel", "Owl Carousel", 10_000),
    ],
    themes: [
      { slug: "astra", name: "Astra", installs: 1_000_000, updated: at() },
      { slug: "twentytwentyfour", name: "Twenty Twenty-Four", installs: 1_000_000, updated: at() },
      { slug: "flavorite", name: "Flavorite", installs: 2_000, updated: at() },
    ],
  };
}

/**
 * The names index's answers computed in memory from fixture entries, with the same keys as
 * the database (nameKeysOf) — for pure detection tests. The database's own lookup is tested
 * in test/platform/intel/names-index.test.ts and end to end in test/api/names-e2e.test.ts.
 */
export function memoryNameLookup(fixture: {
  plugins: DirectoryEntryFixture[];
  themes: DirectoryEntryFixture[];
}): NameLookup {
  const entries = [
    ...fixture.plugins.map((entry) => ({ type: "plugin" as const, entry })),
    ...fixture.themes.map((entry) => ({ type: "theme" as const, entry })),
  ];
  return async (query: NameQuery): Promise<DirectoryAnswer> => {
    const answer: DirectoryAnswer = { available: true, names: {}, slugs: {} };
    const names = new Set(query.names);
    const slugs = new Set(query.slugs);
    for (const { type, entry } of entries) {
      const name = decodeEntities(entry.name);
      const installs = entry.installs ?? null;
      for (const { key, kind } of nameKeysOf(name)) {
        if (!names.has(key)) continue;
        const hits = answer.names[key] ?? [];
        hits.push({ type, slug: entry.slug, kind, installs });
        answer.names[key] = hits;
        answer.slugs[`${type}:${entry.slug}`] = { name, installs };
      }
      if (slugs.has(entry.slug)) answer.slugs[`${type}:${entry.slug}`] = { name, installs };
    }
    for (const list of Object.values(answer.names)) list.sort((a, b) => (b.installs ?? 0) - (a.installs ?? 0));
    return answer;
  };
}
