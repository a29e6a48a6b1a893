/**
 * Saves what the gather stage fetched from a site as a JSON artifact file, so detectors
 * and audits can be tested on it without a network:
 *
 *   bun scripts/capture-artifacts.ts http://127.0.0.1:8088/ test/artifacts/wp-6.1.9.json
 *
 * Timings are zeroed so the file does not change between captures of the same site.
 */
import { writeFileSync } from "node:fs";
import { createSafeAgent } from "../server/analyzer/fetch/safe-agent.ts";
import { SafeClient } from "../server/analyzer/fetch/safe-client.ts";
import { TargetPolicy } from "../server/analyzer/fetch/target-policy.ts";
import { gather } from "../server/analyzer/gather/gather.ts";
import { USER_AGENT } from "../server/services.ts";

const [url, output] = process.argv.slice(2);
if (!url || !output) {
  console.error("usage: bun scripts/capture-artifacts.ts <url> <output.json>");
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
console.log(`saved ${output}`);
