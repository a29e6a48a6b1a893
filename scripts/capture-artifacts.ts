/**
 * Saves what the gather stage fetched from a site as a JSON artifact file, so detectors
 * and audits can be tested on it without a network:
 *
 *   bun scripts/capture-artifacts.ts http://127.0.0.1:8088/ test/analyzer/artifacts/wp-6.1.9.json
 *
 * or from one of the small sites in test/analyzer/sites/, started here on 127.0.0.1:<port> (default
 * 8299, so that captured URLs stay the same between captures) with an optional path:
 *
 *   bun scripts/capture-artifacts.ts --site subdir-child [--path /blog/] [--port 8299] test/analyzer/artifacts/site-subdir-child.json
 *
 * Timings are zeroed so the file does not change between captures of the same site.
 */
import { writeFileSync } from "node:fs";
import { createSafeAgent } from "../server/analyzer/fetch/safe-agent.ts";
import { SafeClient } from "../server/analyzer/fetch/safe-client.ts";
import { TargetPolicy } from "../server/analyzer/fetch/target-policy.ts";
import { gather } from "../server/analyzer/gather/gather.ts";
import { ANALYZER_USER_AGENT as USER_AGENT } from "../server/analyzer/user-agent.ts";
import { type StaticSite, startStaticSite } from "../test/analyzer/sites/static-site.ts";

const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args.splice(at, 2)[1] : undefined;
};
const siteName = option("site");
const sitePath = option("path") ?? "/";
const sitePort = Number(option("port") ?? 8299);
let site: StaticSite | undefined;
if (siteName) site = startStaticSite(siteName, sitePort);
const url = site ? new URL(sitePath, site.url).toString() : args[0];
const output = site ? args[0] : args[1];
if (!url || !output) {
  console.error("usage: bun scripts/capture-artifacts.ts <url> <output.json>");
  console.error("       bun scripts/capture-artifacts.ts --site <name> [--path /blog/] [--port 8299] <output.json>");
  process.exit(2);
}
const policy = new TargetPolicy((process.env.TARGET_ALLOWLIST ?? "127.0.0.1,localhost").split(","));
const agent = createSafeAgent(policy);
const artifacts = await gather(url, new SafeClient(agent, policy, AbortSignal.timeout(30_000), USER_AGENT));
artifacts.homepage.ttfb_ms = 0;
artifacts.homepage.ttfb_samples_ms = artifacts.homepage.ttfb_samples_ms.map(() => 0);
artifacts.homepage.download_ms = 0;
for (const row of artifacts.requests) {
  row.ms = 0;
  row.ttfb_ms = 0;
}
// Stable order, so that two captures of the same site give the same file.
artifacts.probes = Object.fromEntries(Object.entries(artifacts.probes).sort(([a], [b]) => a.localeCompare(b)));
artifacts.requests.sort((a, b) => `${a.url} ${a.method}`.localeCompare(`${b.url} ${b.method}`));
artifacts.errors.sort((a, b) => `${a.stage} ${a.url}`.localeCompare(`${b.stage} ${b.url}`));
writeFileSync(output, `${JSON.stringify(artifacts, null, 2)}\n`);
await agent.close();
site?.stop();
console.log(`saved ${output}`);
