/**
 * End to end on the live test sites (test/analyzer/sites/, served by Bun on 127.0.0.1): gather
 * through the real SafeClient, then detect — and the result must be the one the saved
 * artifacts (test/analyzer/artifacts/site-*.json, captured from the same sites with
 * scripts/capture-artifacts.ts) give, so the pure tests on those artifacts stay true to what
 * gather really fetches. Origins differ (the capture ran on a fixed port), so they are
 * compared with the capture's origin put in.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { buildResult } from "../../server/analyzer/analyze.ts";
import type { Artifacts } from "../../server/analyzer/artifacts.ts";
import { createSafeAgent } from "../../server/analyzer/fetch/safe-agent.ts";
import { SafeClient } from "../../server/analyzer/fetch/safe-client.ts";
import { TargetPolicy } from "../../server/analyzer/fetch/target-policy.ts";
import { gather } from "../../server/analyzer/gather/gather.ts";
import { blogHomepage, startSite } from "../helpers/sites.ts";
import { loadArtifacts } from "./artifacts.ts";
import { type StaticSite, startStaticSite } from "./sites/static-site.ts";

const CAPTURED_ORIGIN = "http://127.0.0.1:8299";
const policy = new TargetPolicy(["127.0.0.1"]);
const agent = createSafeAgent(policy);
const started: StaticSite[] = [];
afterAll(async () => {
  for (const site of started) site.stop();
  await agent.close();
});

/** What detection and the listing check say, as JSON with the site's origin replaced by the capture's. */
function outcome(artifacts: Artifacts, origin: string) {
  const result = buildResult(artifacts);
  const seen = {
    install_path: result.wordpress?.install_path,
    wordpress_version: result.wordpress?.version,
    theme: result.theme,
    plugins: result.plugins,
    directory_listing: result.checks.find((check) => check.id === "security.directory_listing"),
    // Not every probe key: the probe catalogue grows; these are the ones detection reads here.
    probes: Object.keys(artifacts.probes)
      .filter((key) => /_listing$|^plugin_readme:|^theme_style:|^rest_root$/.test(key))
      .sort(),
  };
  return JSON.parse(JSON.stringify(seen).replaceAll(origin, CAPTURED_ORIGIN));
}

const SITES: [name: string, path: string][] = [
  ["credits", "/"],
  ["headers", "/"],
  ["listing-apache", "/"],
  ["subdir-child", "/blog/"],
  ["version-files", "/"],
  ["self-naming", "/"],
  ["no-signal", "/"],
];

describe.each(SITES)("live test site %s", (name, path) => {
  test("gathers what was captured and detects the same components", async () => {
    const site = startStaticSite(name);
    started.push(site);
    const origin = site.url.replace(/\/$/, "");
    const client = new SafeClient(agent, policy, AbortSignal.timeout(20_000), "wpreport-test");
    const artifacts = await gather(`${origin}${path}`, client);
    expect(artifacts.errors).toEqual([]);
    expect(outcome(artifacts, origin)).toEqual(outcome(loadArtifacts(`site-${name}`), CAPTURED_ORIGIN));
    if (name === "listing-apache") {
      // The listing led to the readme of each listed plugin, the inactive one included.
      expect(site.hits).toContain("GET /wp-content/plugins/inactive-helper/readme.txt");
      expect(site.hits).toContain("GET /wp-content/themes/");
    }
  });
});

test("a readme that the REST API and a listing both lead to is asked once, even while the first ask is under way", async () => {
  let origin = "";
  const site = startSite({
    "/": () => new Response(blogHomepage(origin), { headers: { "content-type": "text/html" } }),
    "/wp-json/": () => Response.json({ namespaces: ["wp/v2", "akismet/v1"], routes: {} }),
    "/wp-content/plugins/": () =>
      new Response(
        '<html><head><title>Index of /wp-content/plugins/</title></head><body><pre><a href="akismet/">akismet/</a></pre>',
        {
          headers: { "content-type": "text/html" },
        },
      ),
    // Slow enough that the second asker comes while the first still waits.
    "/wp-content/plugins/akismet/readme.txt": async () => {
      await Bun.sleep(300);
      return new Response("=== Akismet Anti-spam ===\nStable tag: 5.3\n", {
        headers: { "content-type": "text/plain" },
      });
    },
  });
  origin = site.url.replace(/\/$/, "");
  try {
    const client = new SafeClient(agent, policy, AbortSignal.timeout(20_000), "wpreport-test");
    const artifacts = await gather(site.url, client);
    expect(site.hits.filter((hit) => hit === "GET /wp-content/plugins/akismet/readme.txt")).toHaveLength(1);
    expect(artifacts.probes["plugin_readme:akismet"]?.status).toBe(200);
  } finally {
    site.stop();
  }
});
