/**
 * Directory listings: the parser on the autoindex pages the test sites served (Apache
 * FancyIndexing table, nginx autoindex) and on the other formats servers write, its caps,
 * and the security.directory_listing check that names what each listed folder shows.
 */
import { describe, expect, test } from "bun:test";
import { buildResult } from "../../server/analyzer/analyze.ts";
import { auditDirectoryListing } from "../../server/analyzer/audit/security/directory-listing.ts";
import {
  isDirectoryListing,
  listedSlugs,
  MAX_LISTING_ENTRIES,
  parseDirectoryListing,
} from "../../server/analyzer/detect/directory-listing.ts";
import { answer, loadArtifacts, variant, WP_FIXTURE } from "./artifacts.ts";
import { factsOf } from "./facts.ts";

const ORIGIN = "http://127.0.0.1:8299";
const apache = loadArtifacts("site-listing-apache");
const nginx = loadArtifacts("site-subdir-child");
const listingAt = (path: string, body: string) =>
  answer(`${ORIGIN}${path}`, 200, body, { "content-type": "text/html" });

describe("parseDirectoryListing", () => {
  test("Apache FancyIndexing table (captured): folders and files, no parent, no sort links", () => {
    const listing = parseDirectoryListing(apache.probes.plugins_listing);
    expect(listing?.entries).toEqual([
      { name: "akismet", directory: true },
      { name: "foo-gallery", directory: true },
      { name: "hello.php", directory: false },
      { name: "inactive-helper", directory: true },
    ]);
    expect(listing?.capped).toBe(false);
    expect(listedSlugs(listing ?? null)).toEqual(["akismet", "foo-gallery", "inactive-helper"]);
  });

  test("nginx autoindex (captured, under /blog/)", () => {
    const listing = parseDirectoryListing(nginx.probes.themes_listing);
    expect(listing?.url).toBe(`${ORIGIN}/blog/wp-content/themes/`);
    expect(listedSlugs(listing ?? null)).toEqual(["kadence", "kadence-child"]);
  });

  test("Apache <pre> and <ul> styles, LiteSpeed and IIS", () => {
    const pre = `<html><head><title>Index of /wp-content/plugins</title></head><body><h1>Index of /wp-content/plugins</h1><pre><img src="/icons/blank.gif" alt="Icon "> <a href="?C=N;O=D">Name</a>                    <a href="?C=M;O=A">Last modified</a><hr><img src="/icons/back.gif" alt="[PARENTDIR]"> <a href="/wp-content/">Parent Directory</a>
<img src="/icons/folder.gif" alt="[DIR]"> <a href="jetpack/">jetpack/</a>                2024-06-05 10:12    -   </pre></body></html>`;
    expect(parseDirectoryListing(listingAt("/wp-content/plugins/", pre))?.entries).toEqual([
      { name: "jetpack", directory: true },
    ]);
    const ul = `<html><head><title>Index of /wp-content/themes</title></head><body><h1>Index of /wp-content/themes</h1><ul><li><a href="/wp-content/"> Parent Directory</a></li><li><a href="astra/"> astra/</a></li><li><a href="index.php"> index.php</a></li></ul></body></html>`;
    expect(listedSlugs(parseDirectoryListing(listingAt("/wp-content/themes/", ul)))).toEqual(["astra"]);
    const iis = `<html><head><title>example.com - /wp-content/plugins/</title></head><body><H1>example.com - /wp-content/plugins/</H1><hr><pre><A HREF="/wp-content/">[To Parent Directory]</A><br><br> 6/5/2024 10:12 AM &lt;dir&gt; <A HREF="/wp-content/plugins/wordfence/">wordfence</A><br></pre><hr></body></html>`;
    expect(listedSlugs(parseDirectoryListing(listingAt("/wp-content/plugins/", iis)))).toEqual(["wordfence"]);
  });

  test("not listings: WordPress's empty index.php, a 403 page, a listing on a 404, 'Index of' deep in a page", () => {
    const fixture = loadArtifacts(WP_FIXTURE);
    for (const artifact of [
      listingAt("/wp-content/plugins/", "<?php\n// Silence is golden.\n"),
      listingAt("/wp-content/plugins/", "<html><head><title>403 Forbidden</title></head></html>"),
      answer(`${ORIGIN}/x/`, 404, "<html><head><title>Index of /x/</title></head></html>"),
      listingAt("/", `${"<p>post</p>".repeat(1_000)}<title>Index of /</title>`),
      fixture.homepage,
      undefined,
    ]) {
      expect(isDirectoryListing(artifact)).toBe(false);
      expect(parseDirectoryListing(artifact)).toBeNull();
    }
  });

  test("hostile links: absolute, other schemes, parents, queries, nested paths, bad escapes, duplicates", () => {
    const links = [
      "http://evil.test/x/",
      "javascript:alert(1)",
      "//evil.test/",
      "../",
      "./",
      "?C=N;O=D",
      "#top",
      "a/b/",
      "%E0%A4%A/",
      "good%20one/",
      "good%20one/",
      `${"x".repeat(400)}/`,
      "UPPER/",
      "<script>/",
    ];
    const body = `<title>Index of /wp-content/plugins/</title>${links.map((href) => `<a href="${href}">x</a>`).join("\n")}`;
    const listing = parseDirectoryListing(listingAt("/wp-content/plugins/", body));
    expect(listing?.entries).toEqual([
      { name: "%E0%A4%A", directory: true },
      { name: "good one", directory: true },
      { name: "UPPER", directory: true },
      { name: "<script>", directory: true },
    ]);
    // Only names that can be slugs become plugins.
    expect(listedSlugs(listing ?? null)).toEqual(["UPPER"]);
  });

  test("100 000 entries: the first 500 are read, the listing says it was cut", () => {
    const rows = Array.from({ length: 100_000 }, (_, i) => `<a href="p${i}/">p${i}/</a>`).join("\n");
    const listing = parseDirectoryListing(
      listingAt("/wp-content/plugins/", `<title>Index of /wp-content/plugins/</title>${rows}`),
    );
    expect(listing?.entries.length).toBe(MAX_LISTING_ENTRIES);
    expect(listing?.entries.at(-1)?.name).toBe(`p${MAX_LISTING_ENTRIES - 1}`);
    expect(listing?.capped).toBe(true);
  });
});

describe("security.directory_listing names each listed folder", () => {
  const checkOf = (artifacts: ReturnType<typeof loadArtifacts>) => {
    const [check] = auditDirectoryListing(factsOf(artifacts));
    if (!check) throw new Error("no check");
    return check;
  };

  test("plugins/ and themes/ listings: each folder with its entries", () => {
    expect(checkOf(apache)).toMatchObject({
      status: "fail",
      message: "2 directories list their files to anyone.",
      evidence: [
        `${ORIGIN}/wp-content/plugins/ lists 4 entries: akismet/, foo-gallery/, hello.php, inactive-helper/`,
        `${ORIGIN}/wp-content/themes/ lists 2 entries: twentytwentyfour/, twentytwentythree/`,
      ],
    });
    expect(checkOf(nginx).evidence).toEqual([
      `${ORIGIN}/blog/wp-content/plugins/ lists 3 entries: classic-editor/, contact-form-7/, wordpress-seo/`,
      `${ORIGIN}/blog/wp-content/themes/ lists 2 entries: kadence/, kadence-child/`,
    ]);
  });

  test("a long listing quotes 15 names and says it goes on", () => {
    const rows = Array.from({ length: 40 }, (_, i) => `<a href="plugin-${i}/">plugin-${i}/</a>`).join("");
    const big = variant(apache, {
      probes: {
        plugins_listing: listingAt("/wp-content/plugins/", `<title>Index of /wp-content/plugins/</title>${rows}`),
        themes_listing: answer(`${ORIGIN}/wp-content/themes/`, 403, "forbidden"),
      },
    });
    const [line] = checkOf(big).evidence;
    expect(line).toStartWith(`${ORIGIN}/wp-content/plugins/ lists 40 entries: plugin-0/, plugin-1/`);
    expect(line).toEndWith("plugin-14/, …");
  });

  test("no listing: passes, naming the folders asked and their answers", () => {
    const check = checkOf(loadArtifacts("site-credits"));
    expect(check).toMatchObject({
      status: "pass",
      message: "The uploads, plugins and themes directories do not list their files.",
      evidence: [
        `${ORIGIN}/wp-content/uploads/ → 404`,
        `${ORIGIN}/wp-content/plugins/ → 404`,
        `${ORIGIN}/wp-content/themes/ → 403`,
      ],
    });
    // Artifacts captured before the plugins/themes probes existed: the uploads folder alone.
    expect(checkOf(loadArtifacts(WP_FIXTURE)).message).toBe("The uploads directory does not list its files.");
  });
});

describe("listed themes are installed themes", () => {
  test("an open themes listing puts the inactive themes in installed_themes (passive, no found_by)", () => {
    const result = buildResult(apache);
    const active = result.theme?.slug;
    const installed = result.installed_themes ?? [];
    expect(installed.map((theme) => theme.slug)).toEqual(
      ["twentytwentyfour", "twentytwentythree"].filter((slug) => slug !== active),
    );
    for (const theme of installed) {
      expect(theme.found_by).toBeUndefined();
      expect(theme.evidence[0]?.source).toBe("directory_listing");
    }
    // A child theme and its parent, both listed, are the active pair: nothing else is installed.
    const child = buildResult(nginx);
    expect(child.theme?.slug).toBe("kadence-child");
    expect(child.installed_themes).toEqual([]);
  });

  test("a hostile listing of 10 000 themes adds at most 50", () => {
    const rows = Array.from({ length: 10_000 }, (_, i) => `<a href="t${i}/">t${i}/</a>`).join("\n");
    const site = variant(apache, {
      probes: {
        themes_listing: listingAt(
          "/wp-content/themes/",
          `<title>Index of /wp-content/themes/</title><pre>${rows}</pre>`,
        ),
      },
    });
    expect(buildResult(site).installed_themes?.length).toBe(50);
  });
});
