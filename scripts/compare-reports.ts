/**
 * Do two versions of the analyzer write the same reports? For refactors that must not change
 * behaviour: runs detect → extract → audit → score (buildResult) of the working tree and of a
 * git revision on every saved artifact and on variants of each — every probe removed, failed
 * (an errors[] entry), or answered 404, 403, 500 or an empty 200; the homepage over https,
 * cut, without headers, redirected; no probes at all — with no intel and with
 * test/platform/intel/intel.json, and compares the report JSON of each case byte for byte.
 *
 *   bun scripts/compare-reports.ts [--base main] [artifacts.json …]   (default: test/analyzer/artifacts/*.json)
 *
 * Exits 1 and names the cases that differ. The revision is exported with `git archive` into a
 * temporary folder that uses this checkout's node_modules.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Artifacts } from "../server/analyzer/artifacts.ts";
import type { ProbeKey } from "../server/analyzer/probe-keys.ts";

/** The cases of one artifact file, each a name and the artifacts (typed as this tree has them; the JSON is the same). */
function* variants(base: Artifacts): Generator<[string, Artifacts]> {
  yield ["as-is", base];
  for (const [key, answer] of Object.entries(base.probes) as [ProbeKey, Artifacts["probes"][ProbeKey]][]) {
    if (!answer) continue;
    const removed = structuredClone(base);
    delete removed.probes[key];
    yield [`removed ${key}`, removed];
    const failed = structuredClone(removed);
    failed.errors.push({ stage: key, url: answer.url, kind: "timeout", message: "timed out" });
    yield [`failed ${key}`, failed];
    for (const [status, body] of [
      [404, "<html><title>Not Found</title></html>"],
      [403, "Forbidden"],
      [500, "error"],
      [200, ""],
    ] as const) {
      const changed = structuredClone(base);
      changed.probes[key] = { ...answer, status, body, headers: { "content-type": "text/html" } };
      yield [`${status} ${key}`, changed];
    }
  }
  const https = structuredClone(base);
  https.homepage.url = https.homepage.url.replace(/^http:/, "https:");
  yield ["homepage over https", https];
  const cut = structuredClone(base);
  cut.homepage.truncated = true;
  yield ["homepage cut", cut];
  const bare = structuredClone(base);
  bare.homepage.headers = {};
  yield ["homepage without headers", bare];
  const redirected = structuredClone(base);
  redirected.homepage.redirects = [{ url: `${base.homepage.url}old/`, status: 301 }];
  yield ["homepage redirected", redirected];
  const none = structuredClone(base);
  none.probes = {};
  yield ["no probes", none];
}

/** One line per case: file, case, intel, SHA-256 of the report JSON. */
async function fingerprints(root: string, files: string[]): Promise<string[]> {
  const { buildResult } = await import(path.join(root, "server/analyzer/analyze.ts"));
  const { emptyIntel, loadIntel } = await import(path.join(root, "server/analyzer/intel/index.ts"));
  const intels: [string, unknown][] = [
    ["no intel", emptyIntel()],
    ["test intel", loadIntel(path.join(root, "test/platform/intel/intel.json"))],
  ];
  const lines: string[] = [];
  for (const file of files) {
    for (const [name, artifacts] of variants(JSON.parse(readFileSync(file, "utf8")))) {
      for (const [intelName, intel] of intels) {
        // The intel matters to component checks only: every case without, the main ones with.
        if (intelName === "test intel" && name !== "as-is" && !name.startsWith("removed")) continue;
        const json = JSON.stringify(buildResult(structuredClone(artifacts), intel));
        lines.push(
          `${path.basename(file)} | ${name} | ${intelName} | ${createHash("sha256").update(json).digest("hex")}`,
        );
      }
    }
  }
  return lines;
}

async function run(args: string[]): Promise<number> {
  if (args[0] === "--fingerprints") {
    const [, root, ...files] = args as [string, string, ...string[]];
    console.log((await fingerprints(root, files)).join("\n"));
    return 0;
  }
  const at = args.indexOf("--base");
  const base = at >= 0 ? (args.splice(at, 2)[1] ?? "main") : "main";
  const here = path.join(import.meta.dir, "..");
  const files = (
    args.length > 0
      ? args
      : readdirSync(path.join(here, "test/analyzer/artifacts"))
          .filter((name) => name.endsWith(".json"))
          .map((name) => path.join("test/analyzer/artifacts", name))
  ).map((file) => path.resolve(file));
  const tree = mkdtempSync(path.join(tmpdir(), "wpreport-base-"));
  try {
    const archive = Bun.spawnSync(["sh", "-c", `git archive "$0" | tar -x -C "$1"`, base, tree], { cwd: here });
    if (archive.exitCode !== 0) throw new Error(`git archive ${base}: ${archive.stderr.toString()}`);
    symlinkSync(path.join(here, "node_modules"), path.join(tree, "node_modules"));
    // Each version in its own process: both import modules of the same names.
    const side = (root: string) => {
      const child = Bun.spawnSync(["bun", import.meta.path, "--fingerprints", root, ...files], { cwd: root });
      if (child.exitCode !== 0) throw new Error(`${root}: ${child.stderr.toString()}`);
      return child.stdout.toString().trim().split("\n");
    };
    const before = side(tree);
    const after = side(here);
    const differ = after.filter((line, index) => line !== before[index]);
    if (before.length !== after.length) console.log(`${before.length} cases at ${base}, ${after.length} here`);
    for (const line of differ) console.log(`differs: ${line.split(" | ").slice(0, 3).join(" | ")}`);
    console.log(`${after.length} cases from ${files.length} artifact files: ${differ.length} differ from ${base}`);
    return differ.length === 0 && before.length === after.length ? 0 : 1;
  } finally {
    rmSync(tree, { recursive: true, force: true });
  }
}

process.exit(await run(process.argv.slice(2)));
