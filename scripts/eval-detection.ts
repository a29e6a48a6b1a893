/**
 * Detection quality on the corpus (test/analyzer/corpus/, docs/detection.md "Evaluation"):
 * every case is served as a WordPress site on 127.0.0.1 — its homepage (a base page of core
 * and theme markup with the case's evidence in it), its headers, its REST index, the theme's
 * style.css, the plugin's files under wp-content/plugins/<slug>/, a 404 for anything else —
 * and analysed by the real analyzer (analyze(), the real client and target policy):
 *
 *   - passive, with the names index: a PGlite database holding the index imported from a
 *     directory file in the admin CLI's line format (`intel import --source names`), made
 *     from the corpus's display names and directory.yaml's look-alikes;
 *   - passive, without any index;
 *   - aggressive (no enumeration candidates: only the version files of what was found), both
 *     ways, for the cases whose version is only in the plugin's files.
 *
 * It prints, per evidence class and run: plugins found, versions right, wrong versions and
 * false positives (each listed). Options:
 *
 *   npm run eval:detection                       # everything, 4 sites at once
 *   npm run eval:detection -- --jobs 8           # more at once
 *   npm run eval:detection -- --only html_comment,meta_tag   # some classes
 *   npm run eval:detection -- --case files/foo-gallery --verbose   # one case, with its plugins
 *   npm run eval:detection -- --misses           # what each case that is not right was reported with
 *   npm run eval:detection -- --save             # also write the artifacts test/analyzer/corpus.test.ts scores
 *                                                 # (test/analyzer/corpus/artifacts.json.br)
 *   npm run eval:detection -- --json out.json    # the figures as JSON
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { analyze } from "../server/analyzer/analyze.ts";
import type { Artifacts } from "../server/analyzer/artifacts.ts";
import type { NameLookup } from "../server/analyzer/detect/finders/directory.ts";
import { DEFAULT_ENUMERATION_BUDGET, enumerationPlan } from "../server/analyzer/enumeration/plan.ts";
import { createSafeAgent } from "../server/analyzer/fetch/safe-agent.ts";
import { TargetPolicy } from "../server/analyzer/fetch/target-policy.ts";
import { ANALYZER_USER_AGENT } from "../server/analyzer/user-agent.ts";
import { DirectoryStore } from "../server/intel/directory/directory.store.ts";
import { importDirectoryFile } from "../server/intel/directory/directory-import.ts";
import type { PluginInfo } from "../shared/report.ts";
import { createPgliteDatabase } from "../test/helpers/databases.ts";
import {
  type CaseOutcome,
  CORPUS_ARTIFACTS,
  type Corpus,
  type CorpusCase,
  directoryLines,
  figures,
  loadCorpus,
  packCorpusArtifacts,
  percent,
  RUNS,
  type RunName,
  scoreCase,
  serveCase,
} from "../test/helpers/detection-corpus.ts";

const aggressive = (run: RunName) => run.startsWith("aggressive");
const withIndex = (run: RunName) => run.endsWith("index");
/** Which runs a case gets: aggressive only for the cases whose version is in the plugin's files alone. */
export const runsOf = (item: CorpusCase): RunName[] =>
  item.class === "files" ? [...RUNS] : ["passive-index", "passive-none"];

// ---------------------------------------------------------------------------------------------
// The names index: the admin CLI's import, into an embedded database

async function namesIndex(corpus: Corpus): Promise<{ lookup: NameLookup; close(): Promise<void> }> {
  const db = await createPgliteDatabase();
  const dir = mkdtempSync(path.join(tmpdir(), "wpreport-eval-names-"));
  const lines = directoryLines(corpus);
  writeFileSync(path.join(dir, "plugins.txt"), lines.plugins);
  writeFileSync(path.join(dir, "themes.txt"), lines.themes);
  const store = new DirectoryStore(db.sql);
  await importDirectoryFile(store, path.join(dir, "plugins.txt"), "plugin");
  await importDirectoryFile(store, path.join(dir, "themes.txt"), "theme");
  return {
    lookup: (query) => store.lookup(query),
    async close() {
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Running

export interface CaseRun {
  item: CorpusCase;
  run: RunName;
  plugins: Pick<PluginInfo, "slug" | "version" | "confidence" | "evidence">[];
  artifacts: Artifacts;
  errors: string[];
}

/** Origins differ between runs: saved artifacts carry a fixed one, so that two saves of the same corpus are alike. */
export const SAVED_ORIGIN = "http://127.0.0.1:8399";

function stable(artifacts: Artifacts, origin: string): Artifacts {
  const copy = JSON.parse(JSON.stringify(artifacts).replaceAll(origin, SAVED_ORIGIN)) as Artifacts;
  copy.homepage.ttfb_ms = 0;
  copy.homepage.ttfb_samples_ms = copy.homepage.ttfb_samples_ms.map(() => 0);
  copy.homepage.download_ms = 0;
  // Detection reads none of these; they would only make the file churn.
  copy.requests = [];
  for (const answer of Object.values(copy.probes)) {
    delete answer?.headers.date;
  }
  delete copy.homepage.headers.date;
  copy.probes = Object.fromEntries(Object.entries(copy.probes).sort(([a], [b]) => a.localeCompare(b)));
  copy.errors.sort((a, b) => `${a.stage} ${a.url}`.localeCompare(`${b.stage} ${b.url}`));
  for (const asset of copy.assets) delete asset.headers.date;
  copy.assets.sort((a, b) => a.url.localeCompare(b.url));
  return copy;
}

async function runCase(
  corpus: Corpus,
  item: CorpusCase,
  runs: readonly RunName[],
  names: NameLookup,
  agent: ReturnType<typeof createSafeAgent>,
  policy: TargetPolicy,
): Promise<CaseRun[]> {
  const site = serveCase(corpus, item);
  const origin = site.url.replace(/\/$/, "");
  const results: CaseRun[] = [];
  try {
    for (const run of runs) {
      let kept: Artifacts | undefined;
      const result = await analyze(
        site.url,
        {
          agent,
          policy,
          userAgent: ANALYZER_USER_AGENT,
          names: withIndex(run) ? names : undefined,
          // Aggressive without candidates: what it adds here is reading the found plugins' files.
          enumerate: aggressive(run)
            ? enumerationPlan({ plugins: [], themes: [] }, DEFAULT_ENUMERATION_BUDGET, { plugins: [], themes: [] })
            : undefined,
          onArtifacts: (artifacts) => {
            kept = stable(artifacts, origin);
          },
        },
        AbortSignal.timeout(60_000),
      );
      results.push({
        item,
        run,
        plugins: result.plugins.map(({ slug, version, confidence, evidence }) => ({
          slug,
          version,
          confidence,
          evidence,
        })),
        artifacts: kept as Artifacts,
        errors: result.errors.map((error) => `${error.kind}: ${error.message}`),
      });
    }
  } finally {
    site.stop();
  }
  return results;
}

/** Runs `work` over `items` with at most `jobs` at once. */
async function pool<T, R>(items: readonly T[], jobs: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, items.length) }, worker));
  return results;
}

// ---------------------------------------------------------------------------------------------
// Printing

function table(run: RunName, outcomes: CaseOutcome[], cases: CorpusCase[]): string {
  const rows = figures(outcomes, cases);
  const lines = [
    `${run}`,
    `  ${"class".padEnd(16)}${"cases".padStart(6)}   ${"found".padEnd(16)}${"version right".padEnd(18)}${"wrong".padStart(6)}${"false pos.".padStart(12)}`,
  ];
  for (const row of rows) {
    const found = row.positives ? `${row.found}/${row.positives} (${percent(row.found, row.positives)} %)` : "-";
    const right = row.versioned ? `${row.right}/${row.versioned} (${percent(row.right, row.versioned)} %)` : "-";
    lines.push(
      `  ${row.class.padEnd(16)}${String(row.cases).padStart(6)}   ${found.padEnd(16)}${right.padEnd(18)}${String(row.wrong.length).padStart(6)}${String(row.falsePositives.length).padStart(12)}`,
    );
  }
  const all = rows.at(-1);
  for (const wrong of all?.wrong ?? []) {
    const [id = "", other] = wrong.id.split(/ \((.+)\)$/);
    const item = cases.find((candidate) => candidate.id === id);
    const truth = (other ? item?.others.find((entry) => entry.slug === other)?.version : item?.version) ?? "none";
    lines.push(`  WRONG ${wrong.id}: reported ${wrong.version}, runs ${truth}`);
  }
  for (const fp of all?.falsePositives ?? []) lines.push(`  FALSE POSITIVE ${fp.id}: ${fp.plugins.join(", ")}`);
  return lines.join("\n");
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const option = (name: string) => {
    const at = args.indexOf(`--${name}`);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const flag = (name: string) => args.includes(`--${name}`);
  const jobs = Math.max(1, Number(option("jobs") ?? 4));
  const only = option("only")?.split(",");
  const oneCase = option("case");
  const corpus = loadCorpus();
  const cases = corpus.cases.filter(
    (item) => (!only || only.includes(item.class)) && (!oneCase || item.id === oneCase),
  );
  if (cases.length === 0) throw new Error("no case matches");
  const started = performance.now();
  const index = await namesIndex(corpus);
  const policy = new TargetPolicy(["127.0.0.1"]);
  const agent = createSafeAgent(policy);
  let done = 0;
  const results = (
    await pool(cases, jobs, async (item) => {
      const found = await runCase(corpus, item, runsOf(item), index.lookup, agent, policy);
      if (process.stderr.isTTY) process.stderr.write(`\r${++done}/${cases.length} cases`);
      return found;
    })
  ).flat();
  if (process.stderr.isTTY) process.stderr.write("\n");
  await agent.close();
  await index.close();

  const byRun = new Map<RunName, CaseRun[]>();
  for (const result of results) byRun.set(result.run, [...(byRun.get(result.run) ?? []), result]);
  const report: Record<string, unknown> = {};
  console.log(
    `detection corpus: ${cases.length} cases (${corpus.cases.length} in all), ${results.length} analyses in ${((performance.now() - started) / 1000).toFixed(1)} s, ${jobs} at once`,
  );
  for (const run of RUNS) {
    const list = byRun.get(run) ?? [];
    if (list.length === 0) continue;
    const outcomes = list.map((result) => scoreCase(result.item, result.plugins));
    console.log(`\n${table(run, outcomes, cases)}`);
    report[run] = figures(outcomes, cases);
  }
  if (flag("verbose") || flag("misses")) {
    for (const result of results) {
      const outcome = scoreCase(result.item, result.plugins);
      const fine = (result.item.slug ? outcome.right : true) && outcome.others.every((other) => other.right);
      if (!flag("verbose") && fine && outcome.extra.length === 0) continue;
      console.log(`\n${result.item.id} [${result.run}] runs ${result.item.version ?? "-"}`);
      for (const plugin of result.plugins) {
        console.log(`  ${plugin.slug} ${plugin.version ?? "-"} (${plugin.confidence})`);
        for (const evidence of plugin.evidence) console.log(`    ${evidence.source}: ${evidence.value}`);
      }
      for (const error of result.errors) console.log(`  error ${error}`);
    }
  }
  const json = option("json");
  if (json) writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
  if (flag("save")) {
    if (only || oneCase) throw new Error("--save needs the whole corpus (no --only, no --case)");
    const byCase = new Map<string, Partial<Record<RunName, Artifacts>>>();
    for (const result of results)
      byCase.set(result.item.id, { ...byCase.get(result.item.id), [result.run]: result.artifacts });
    writeFileSync(CORPUS_ARTIFACTS, packCorpusArtifacts(byCase));
    console.log(`saved ${path.relative(process.cwd(), CORPUS_ARTIFACTS)}`);
  }
}

if (import.meta.main) await main();
