/**
 * Detection quality on the corpus (test/analyzer/corpus/, docs/detection.md "Evaluation"),
 * from the artifacts `npm run eval:detection -- --save` captured (no network): every case and
 * run goes through detect() again, and the figures may not fall below the floors below — no
 * wrong version and no false positive, ever. A change that improves them raises the floors;
 * a change to gather (what is fetched) needs a new capture, which the live check at the end
 * keeps honest on a few cases.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { analyze, detect } from "../../server/analyzer/analyze.ts";
import { DEFAULT_ENUMERATION_BUDGET, enumerationPlan } from "../../server/analyzer/enumeration/plan.ts";
import { createSafeAgent } from "../../server/analyzer/fetch/safe-agent.ts";
import { TargetPolicy } from "../../server/analyzer/fetch/target-policy.ts";
import {
  type ClassFigures,
  type CorpusClass,
  figures,
  loadCorpus,
  loadCorpusArtifacts,
  percent,
  RUNS,
  type RunName,
  scoreCase,
  serveCase,
} from "../helpers/detection-corpus.ts";

const corpus = loadCorpus();
const saved = loadCorpusArtifacts();
const runsOf = (cls: CorpusClass): RunName[] => (cls === "files" ? [...RUNS] : ["passive-index", "passive-none"]);

/** The figures as they stand (found %, versions right %), per run and class: floors, not goals. */
const FLOORS: Record<RunName, Partial<Record<CorpusClass | "all", [found: number, right: number]>>> = {
  "passive-index": {
    html_comment: [93, 94],
    meta_tag: [86, 88],
    inline_script: [58, 56],
    meta_generator: [100, 100],
    header: [100, 100],
    asset_ver: [100, 97],
    files: [97, 72],
    credit_trap: [100, 100],
    shared_ver: [100, 100],
    all: [92, 86],
  },
  "passive-none": {
    html_comment: [21, 13],
    asset_ver: [100, 97],
    files: [76, 60],
    credit_trap: [80, 80],
    shared_ver: [100, 100],
    all: [55, 49],
  },
  "aggressive-index": { files: [97, 94], all: [97, 94] },
  "aggressive-none": { files: [76, 73], all: [76, 73] },
};

describe("the saved captures are the corpus's", () => {
  test("every case has its runs captured, and nothing else is", () => {
    const expected = corpus.cases.flatMap((item) => runsOf(item.class).map((run) => `${item.id} ${run}`)).sort();
    const captured = [...saved].flatMap(([id, runs]) => Object.keys(runs).map((run) => `${id} ${run}`)).sort();
    expect(captured).toEqual(expected);
  });
});

describe.each(RUNS)("%s", (run) => {
  const cases = corpus.cases.filter((item) => runsOf(item.class).includes(run));
  const outcomes = cases.map((item) => {
    const artifacts = saved.get(item.id)?.[run];
    if (!artifacts) throw new Error(`no capture of ${item.id} (${run}): npm run eval:detection -- --save`);
    return scoreCase(item, detect(artifacts).plugins);
  });
  const rows = new Map(figures(outcomes, cases).map((row) => [row.class, row]));
  const all = rows.get("all") as ClassFigures;

  test("no wrong version, no false positive", () => {
    expect(all.wrong).toEqual([]);
    expect(all.falsePositives).toEqual([]);
  });

  test.each(Object.entries(FLOORS[run]))("%s: found and versions right stay at their floors", (cls, floor) => {
    const row = rows.get(cls as CorpusClass | "all") as ClassFigures;
    const [found, right] = floor as [number, number];
    expect(percent(row.found, row.positives)).toBeGreaterThanOrEqual(found);
    expect(percent(row.right, row.versioned)).toBeGreaterThanOrEqual(right);
  });
});

describe("the captures are what gather fetches now (a few cases, live on 127.0.0.1)", () => {
  const policy = new TargetPolicy(["127.0.0.1"]);
  const agent = createSafeAgent(policy);
  afterAll(() => agent.close());
  // One case of each class, without the names index (the harness imports it into a database).
  const sample = [
    "html_comment",
    "meta_tag",
    "inline_script",
    "asset_ver",
    "files",
    "credit_trap",
    "shared_ver",
    "negative",
  ].map((cls) => corpus.cases.find((item) => item.class === cls && saved.has(item.id)) ?? corpus.cases[0]);

  test.each(sample.map((item) => [item?.id ?? "", item] as const))("%s", async (_id, item) => {
    if (!item) throw new Error("no case");
    const runs: RunName[] = item.class === "files" ? ["passive-none", "aggressive-none"] : ["passive-none"];
    const site = serveCase(corpus, item);
    try {
      for (const run of runs) {
        const live = await analyze(
          site.url,
          {
            agent,
            policy,
            userAgent: "wpreport-test",
            enumerate: run.startsWith("aggressive")
              ? enumerationPlan({ plugins: [], themes: [] }, DEFAULT_ENUMERATION_BUDGET, { plugins: [], themes: [] })
              : undefined,
          },
          AbortSignal.timeout(20_000),
        );
        const capture = saved.get(item.id)?.[run];
        if (!capture) throw new Error(`no capture of ${item.id} (${run})`);
        const shape = (plugins: { slug: string; version: string | null }[]) =>
          plugins.map(({ slug, version }) => ({ slug, version }));
        expect(shape(live.plugins), run).toEqual(shape(detect(capture).plugins));
      }
    } finally {
      site.stop();
    }
  });
});
