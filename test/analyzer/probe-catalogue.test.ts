/**
 * The probe catalogue (probe-kinds.ts): keys are typed and match what saved artifacts
 * hold, requests are built from the records at any site layout, docs/probes.md is generated
 * from it, and audits get facts without the artifacts.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { renderProbeDocs } from "../../scripts/generate-probe-docs.ts";
import { exposedFileProbe, type ProbeSite, probeAt, probeOf } from "../../server/analyzer/gather/probes.ts";
import { isProbeKey, probeKey, probeValues } from "../../server/analyzer/probe-keys.ts";
import { EXPOSED_FILES, PROBE_KINDS, type ProbeKind } from "../../server/analyzer/probe-kinds.ts";
import { loadArtifacts, WP_FIXTURE } from "./artifacts.ts";
import { factsOf } from "./facts.ts";

const root = path.join(import.meta.dir, "..", "..");

/** WordPress in /blog/ with its content directory moved to /blog/app/. */
const SUBDIR: ProbeSite = {
  origin: "https://example.com",
  homeBase: "https://example.com/blog/",
  coreBase: "https://example.com/blog/",
  contentBase: "https://example.com/blog/app/",
};
/** The Bedrock layout: home at the root, core in /wp/, content in /app/. */
const BEDROCK: ProbeSite = {
  origin: "https://example.com",
  homeBase: "https://example.com/",
  coreBase: "https://example.com/wp/",
  contentBase: "https://example.com/app/",
};

describe("probe keys", () => {
  test("every key in the saved artifacts is a key of the catalogue", () => {
    const files = readdirSync(path.join(root, "test", "analyzer", "artifacts")).filter((file) =>
      file.endsWith(".json"),
    );
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      const keys = Object.keys(loadArtifacts(file.replace(/\.json$/, "")).probes);
      expect(keys.length).toBeGreaterThan(20);
      expect(keys.filter((key) => !isProbeKey(key))).toEqual([]);
    }
  });

  test("error stages that are not probes are not probe keys", () => {
    for (const stage of ["homepage", "asset", "intel", "enumeration", "sitemap", "exposed", "theme_style"]) {
      expect(isProbeKey(stage)).toBe(false);
    }
    for (const key of ["robots", "plugin_readme:akismet", "exposed:/.env", "sitemap:https://example.com/a.xml"]) {
      expect(isProbeKey(key)).toBe(true);
    }
  });

  test("a misspelt key does not compile (npm run typecheck fails on an unused @ts-expect-error)", () => {
    const artifacts = loadArtifacts(WP_FIXTURE);
    expect(artifacts.probes["exposed:/.env"]?.status).toBe(404);
    // @ts-expect-error: there is no probe rest_roots
    expect(artifacts.probes.rest_roots).toBeUndefined();
    // @ts-expect-error: nor a key pattern exposd:<path>
    expect(artifacts.probes["exposd:/.env"]).toBeUndefined();
    // @ts-expect-error: plugin_readmes is no kind
    expect(() => probeKey("plugin_readmes", "akismet")).toThrow();
    // @ts-expect-error: robots is a fixed key, it takes no value
    expect(probeKey("robots", "x")).toBe("robots");
  });

  test("keys of pattern kinds, and the values they were made with", () => {
    expect(probeKey("plugin_readme", "akismet")).toBe("plugin_readme:akismet");
    expect(probeKey("sitemap", "https://example.com/$&.xml")).toBe("sitemap:https://example.com/$&.xml");
    const readmes = probeValues(loadArtifacts("site-listing-apache").probes, "plugin_readme").map(([slug]) => slug);
    expect(readmes).toEqual(["akismet", "foo-gallery", "inactive-helper"]);
  });
});

describe("requests built from the records", () => {
  test("paths resolve against the home, the core directory, the content directory or the origin", () => {
    expect(probeOf("readme_html", SUBDIR)).toMatchObject({
      key: "readme_html",
      url: "https://example.com/blog/readme.html",
      maxBytes: 64 * 1024,
    });
    expect(probeOf("plugin_readme", SUBDIR, "akismet")).toMatchObject({
      key: "plugin_readme:akismet",
      url: "https://example.com/blog/app/plugins/akismet/readme.txt",
    });
    expect(probeOf("robots", SUBDIR).url).toBe("https://example.com/robots.txt");
    expect(probeOf("author_1", SUBDIR)).toMatchObject({ url: "https://example.com/blog/?author=1", follow: false });
    expect(probeOf("not_found", SUBDIR, "1a2b3c4d")).toMatchObject({
      key: "not_found",
      url: "https://example.com/blog/wpreport-1a2b3c4d-not-found/",
    });
  });

  test("in the Bedrock layout, core's files are asked under /wp/, the content directory's under /app/, the rest under home", () => {
    expect(probeOf("login", BEDROCK).url).toBe("https://example.com/wp/wp-login.php");
    expect(probeOf("xmlrpc_methods", BEDROCK).url).toBe("https://example.com/wp/xmlrpc.php");
    expect(probeOf("readme_html", BEDROCK).url).toBe("https://example.com/wp/readme.html");
    expect(probeOf("uploads", BEDROCK).url).toBe("https://example.com/app/uploads/");
    expect(probeOf("plugins_listing", BEDROCK).url).toBe("https://example.com/app/plugins/");
    expect(probeOf("author_1", BEDROCK).url).toBe("https://example.com/?author=1");
    expect(probeOf("users_sitemap", BEDROCK).url).toBe("https://example.com/wp-sitemap-users-1.xml");
    const exposed = Object.fromEntries(EXPOSED_FILES.map((file) => [file.path, exposedFileProbe(file, BEDROCK).url]));
    expect(exposed).toMatchObject({
      "wp-admin/install.php": "https://example.com/wp/wp-admin/install.php",
      "debug.log": "https://example.com/app/debug.log",
      "backup-db/": "https://example.com/app/backup-db/",
      "wp-config.php.bak": "https://example.com/wp-config.php.bak",
      ".env": "https://example.com/.env",
    });
    // wp-config.php sits in core's directory or the one above it: its backups are asked in both.
    const beside = EXPOSED_FILES.filter((file) => file.alsoUnderCore).map(
      (file) => exposedFileProbe(file, BEDROCK, "core").url,
    );
    expect(beside).toContain("https://example.com/wp/wp-config.php.bak");
    expect(EXPOSED_FILES.filter((file) => file.alsoUnderCore).every((file) => file.kind === "config_backup")).toBe(
      true,
    );
  });

  test("REST routes follow the root's style; found URLs are given", () => {
    const pretty = { ...SUBDIR, restRoot: "https://example.com/blog/wp-json/" };
    expect(probeOf("rest_users", pretty).url).toBe("https://example.com/blog/wp-json/wp/v2/users?per_page=100");
    const plain = { ...SUBDIR, restRoot: "https://example.com/blog/?rest_route=/" };
    expect(new URL(probeOf("rest_users", plain).url).searchParams.get("rest_route")).toBe("/wp/v2/users?per_page=100");
    expect(() => probeOf("rest_users", SUBDIR)).toThrow("needs the REST root");
    expect(() => probeOf("feed", SUBDIR)).toThrow("found by gather");
    expect(probeAt("sitemap", "https://example.com/blog/wp-sitemap.xml")).toMatchObject({
      key: "sitemap:https://example.com/blog/wp-sitemap.xml",
      maxBytes: 512 * 1024,
    });
    expect(probeAt("xmlrpc_methods", "https://example.com/blog/xmlrpc.php")).toMatchObject({
      key: "xmlrpc_methods",
      method: "POST",
      idempotent: true,
      headers: { "content-type": "text/xml" },
    });
  });

  test("exposed files: keyed by their path, logs and dumps read in their first 4 KiB", () => {
    const probes = EXPOSED_FILES.map((file) => exposedFileProbe(file, SUBDIR));
    expect(new Set(probes.map((probe) => probe.key)).size).toBe(EXPOSED_FILES.length);
    expect(probes.find((probe) => probe.key === "exposed:/blog/app/debug.log")).toMatchObject({
      url: "https://example.com/blog/app/debug.log",
      headers: { range: "bytes=0-4095" },
      maxBytes: 4096,
      headFirst: true,
      follow: false,
    });
    expect(probes.find((probe) => probe.key === "exposed:/blog/.env")).toMatchObject({ maxBytes: 32 * 1024 });
    expect(probes.find((probe) => probe.key === "exposed:/blog/.env")?.headers).toBeUndefined();
  });
});

describe("the catalogue's docs and facts", () => {
  test("docs/probes.md is generated from the catalogue (run `bun run docs:probes`)", () => {
    expect(readFileSync(path.join(root, "docs", "probes.md"), "utf8")).toBe(renderProbeDocs());
  });

  test("every gather probe feeds at least one check", () => {
    const silent = Object.entries(PROBE_KINDS as Record<string, ProbeKind>)
      .filter(([, kind]) => kind.askedBy === "gather" && kind.checks.length === 0)
      .map(([name]) => name);
    expect(silent).toEqual([]);
  });

  test("audits get facts without the artifacts", () => {
    const facts = factsOf(loadArtifacts(WP_FIXTURE));
    expect("artifacts" in facts).toBe(false);
    expect(facts.probes.answers["exposed:/.env"]).toEqual({
      url: "http://127.0.0.1:8088/.env",
      asked: "http://127.0.0.1:8088/.env",
      status: 404,
    });
    expect(facts.homepage.page.title).toBe(facts.seo.title);
  });
});
