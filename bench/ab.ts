/**
 * A/B of the passive report: the working tree against a git revision, on the same site, in one
 * process, one report of each in turn (the order swapped every round). On a machine whose load
 * moves by tens of percent from one minute to the next, only reports made side by side compare.
 * Prints, per side, the report's wall p50 and the analyzer's CPU per report (p50 and mean), the
 * requests per report, and per round the ratio of the walls and the difference of the CPUs
 * (their p50s).
 *
 *   npm run bench:ab -- --base main
 *   npm run bench:ab -- --base 7e3b67e --rounds 60 --url http://localhost:8090/
 *
 * The CPU is the process's (process.cpuUsage), so JavaScriptCore's compiler and GC threads count
 * too, and either side's can spill into a report of the other: compare many rounds. The revision
 * is exported with `git archive` into a temporary folder that uses this checkout's node_modules;
 * both versions' modules are loaded from their own folders. TARGET_ALLOWLIST as in bench:analyze.
 */
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? (args[at + 1] ?? fallback) : fallback;
};
const base = option("base", "main");
const rounds = Number(option("rounds", "40"));
const url = option("url", "http://127.0.0.1:8088/");
const allowlist = (process.env.TARGET_ALLOWLIST ?? "127.0.0.1,localhost,127.0.0.2:8092,127.0.0.3:8093").split(",");

interface Side {
  name: string;
  run(): Promise<{ performance: { requests: unknown[] } | null }>;
  close(): Promise<void>;
  walls: number[];
  cpus: number[];
  requests: number;
}

async function side(name: string, root: string): Promise<Side> {
  const { analyze } = await import(path.join(root, "server/analyzer/analyze.ts"));
  const { createSafeAgent } = await import(path.join(root, "server/analyzer/fetch/safe-agent.ts"));
  const { TargetPolicy } = await import(path.join(root, "server/analyzer/fetch/target-policy.ts"));
  const { ANALYZER_USER_AGENT } = await import(path.join(root, "server/analyzer/user-agent.ts"));
  const policy = new TargetPolicy(allowlist);
  const agent = createSafeAgent(policy);
  return {
    name,
    run: () => analyze(url, { agent, policy, userAgent: ANALYZER_USER_AGENT }, AbortSignal.timeout(60_000)),
    close: () => agent.close(),
    walls: [],
    cpus: [],
    requests: 0,
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

const here = path.join(import.meta.dir, "..");
const tree = mkdtempSync(path.join(tmpdir(), "wpreport-ab-"));
try {
  const archive = Bun.spawnSync(["sh", "-c", `git archive "$0" server shared | tar -x -C "$1"`, base, tree], {
    cwd: here,
  });
  if (archive.exitCode !== 0) throw new Error(`git archive ${base}: ${archive.stderr.toString()}`);
  symlinkSync(path.join(here, "node_modules"), path.join(tree, "node_modules"));
  const sides = [await side(base, tree), await side("working tree", here)] as const;
  console.log(`bench:ab — ${url}, ${base} against the working tree, ${rounds} rounds`);
  // Warm-up, not counted: modules, the compiler's first tiers, keep-alive connections.
  for (let i = 0; i < 3; i++) for (const one of sides) await one.run();
  for (let round = 0; round < rounds; round++) {
    for (const one of round % 2 === 0 ? sides : [...sides].reverse()) {
      const cpu = process.cpuUsage();
      const started = performance.now();
      const report = await one.run();
      one.walls.push(performance.now() - started);
      const used = process.cpuUsage(cpu);
      one.cpus.push((used.user + used.system) / 1000);
      one.requests = report.performance?.requests.length ?? 0;
    }
  }
  for (const one of sides) {
    const mean = one.cpus.reduce((sum, value) => sum + value, 0) / one.cpus.length;
    console.log(
      `  ${one.name.padEnd(14)} wall p50 ${median(one.walls).toFixed(0)} ms   analyzer CPU p50 ${median(one.cpus).toFixed(0)} ms (mean ${mean.toFixed(0)})   ${one.requests} requests`,
    );
  }
  const [before, after] = sides;
  const ratio = median(after.walls.map((wall, i) => wall / (before.walls[i] as number)));
  const difference = median(after.cpus.map((cpu, i) => cpu - (before.cpus[i] as number)));
  console.log(
    `  per round: wall ratio p50 ${ratio.toFixed(2)}, CPU difference p50 ${difference >= 0 ? "+" : ""}${difference.toFixed(1)} ms`,
  );
  for (const one of sides) await one.close();
} finally {
  rmSync(tree, { recursive: true, force: true });
}
