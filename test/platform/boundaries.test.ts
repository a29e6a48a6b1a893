/**
 * The import boundaries (docs/architecture.md, "Boundaries") are Biome lint rules, so
 * `npm run lint` — run by CI — refuses a crossing. This test plants crossings and allowed
 * imports in a scratch tree under the project's own biome.json and checks that Biome flags
 * exactly the crossings.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { ROOT } from "../helpers/processes.ts";

/** `exact`: planted at `file` itself (the rule names that file), not beside it. */
const CASES: { file: string; from: string; crossing: boolean; exact?: boolean }[] = [
  { file: "server/analyzer/analyze.ts", from: "../config.ts", crossing: true },
  { file: "server/analyzer/analyze.ts", from: "../../shared/report.ts", crossing: false },
  { file: "server/analyzer/analyze.ts", from: "./detect/theme.ts", crossing: false },
  { file: "server/analyzer/detect/theme.ts", from: "../../db/database.ts", crossing: true },
  { file: "server/analyzer/detect/theme.ts", from: "../../../action/src/run.ts", crossing: true },
  { file: "server/analyzer/detect/theme.ts", from: "../../../shared/report.ts", crossing: false },
  { file: "server/analyzer/detect/theme.ts", from: "../parse/page.ts", crossing: false },
  { file: "server/analyzer/audit/security/xmlrpc.ts", from: "../../../intel/intel.store.ts", crossing: true },
  { file: "server/analyzer/audit/security/xmlrpc.ts", from: "../../intel/versions.ts", crossing: false },
  { file: "server/analyzer/audit/security/xmlrpc.ts", from: "../../../../shared/report.ts", crossing: false },
  { file: "shared/diff.ts", from: "../server/platform/version.ts", crossing: true },
  { file: "shared/diff.ts", from: "../action/src/run.ts", crossing: true },
  { file: "shared/diff.ts", from: "./report.ts", crossing: false },
  { file: "action/src/run.ts", from: "../../server/start/config.ts", crossing: true },
  { file: "action/src/run.ts", from: "../../shared/client.ts", crossing: false },
  { file: "server/platform/http/openapi.ts", from: "../../reports/reports.service.ts", crossing: true },
  { file: "server/platform/logger.ts", from: "../billing/plans.ts", crossing: true },
  { file: "server/platform/queue.ts", from: "../analyzer/enumeration/plan.ts", crossing: true },
  { file: "server/platform/db/migrate.ts", from: "../../start/services.ts", crossing: true },
  { file: "server/platform/settings.ts", from: "../reports/settings.ts", crossing: true, exact: true },
  { file: "server/platform/settings.ts", from: "./settings-reader.ts", crossing: false },
  { file: "server/platform/cron.ts", from: "../start/config.ts", crossing: true, exact: true },
  { file: "server/platform/http/client-request.ts", from: "../../web/session.service.ts", crossing: true },
  { file: "server/platform/db/database.ts", from: "../../access/rate-limiter.ts", crossing: true },
  { file: "server/platform/http/server.ts", from: "../logger.ts", crossing: false },
  { file: "server/platform/health.routes.ts", from: "../../shared/api.ts", crossing: false },
  { file: "server/reports/dashboard.web.tsx", from: "../web/render.tsx", crossing: false },
  { file: "server/start/runtime.ts", from: "../reports/reports.ts", crossing: false, exact: true },
  { file: "server/start/config.ts", from: "../billing/settings.ts", crossing: false, exact: true },
];

function plantedName(file: string, index: number, exact?: boolean): string {
  return exact ? file : `${file.replace(/\.ts$/, "")}-${index}.ts`;
}

describe("import boundaries are lint rules", () => {
  let scratch: string;

  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), "wpreport-boundaries-"));
    const config = (await Bun.file(path.join(ROOT, "biome.json")).json()) as Record<string, unknown>;
    // The scratch tree is not a git checkout, and holds only the planted files.
    config.vcs = { enabled: false };
    config.files = { includes: ["**"] };
    config.$schema = undefined;
    await writeFile(path.join(scratch, "biome.json"), JSON.stringify(config));
    for (const [index, { file, from, exact }] of CASES.entries()) {
      const planted = path.join(scratch, plantedName(file, index, exact));
      await mkdir(path.dirname(planted), { recursive: true });
      await writeFile(planted, `import { a } from "${from}";\n\nexport const b = a;\n`);
    }
  });

  afterAll(async () => {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  test("Biome flags each crossing and nothing else", async () => {
    const biome = Bun.spawn([path.join(ROOT, "node_modules/.bin/biome"), "lint", "--reporter=github", "."], {
      cwd: scratch,
      stdout: "pipe",
      stderr: "pipe",
    });
    const output = await new Response(biome.stdout).text();
    await biome.exited;
    const flagged = new Set(
      [...output.matchAll(/title=lint\/style\/noRestrictedImports,file=([^,]+),/g)].map((match) =>
        path.relative(scratch, match[1] as string),
      ),
    );
    const expected = new Set(
      CASES.flatMap(({ file, crossing, exact }, index) => (crossing ? [plantedName(file, index, exact)] : [])),
    );
    expect([...flagged].sort()).toEqual([...expected].sort());
  });
});
