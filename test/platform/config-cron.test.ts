/**
 * Cron expressions in the configuration are checked at start-up with the parser the queue runs
 * them with: what passes is something pg-boss can schedule, and what fails stops the start with
 * the variable's name (exit 2) instead of crashing inside the queue later.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PgBoss } from "pg-boss";
import { cronProblem } from "../../server/platform/cron.ts";
import { ConfigError, loadConfig } from "../../server/start/config.ts";
import { ROOT, runProcess } from "../helpers/processes.ts";

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

const VALID = ["0 */6 * * *", "17 3 * * 1-5", "@daily", "0 0 * * 7", "*/30 * * * * *", "0 4 1 */2 *"];
const INVALID: [string, RegExp][] = [
  ["99 99 99 99 99", /got value 99 expected range 0-59/],
  ["0 24 * * *", /expected range 0-23/],
  ["0 0 31 2 *", /day of month/i],
  ["0 6 * *", /4 fields/],
  ["1 2 3 4 5 6 7", /7 fields/],
  ["every day", /2 fields/],
  ["@sometimes", /alias/],
];

describe("INTEL_REFRESH_CRON", () => {
  test("valid expressions and off are accepted; the default runs every 6 hours", () => {
    for (const expression of VALID)
      expect(loadConfig({ INTEL_REFRESH_CRON: expression }).intel.refreshCron).toBe(expression);
    expect(loadConfig({ INTEL_REFRESH_CRON: "off" }).intel.refreshCron).toBeUndefined();
    expect(loadConfig({}).intel.refreshCron).toBe("0 */6 * * *");
  });

  test("an invalid expression is refused, naming the variable, the value and what is wrong", () => {
    for (const [expression, reason] of INVALID) {
      const problems = problemsOf({ INTEL_REFRESH_CRON: expression });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toStartWith(`INTEL_REFRESH_CRON must be a cron expression in UTC`);
      expect(problems[0]).toContain(`"${expression}"`);
      expect(problems[0]).toMatch(reason);
    }
  });

  test("what the check accepts, pg-boss schedules; what it refuses, pg-boss refuses too", async () => {
    // previewSchedule validates exactly as schedule() does, without a database.
    const boss = new PgBoss({ connectionString: "postgres://unused@127.0.0.1:1/unused" });
    for (const expression of VALID) {
      expect(cronProblem(expression)).toBeUndefined();
      expect((await boss.previewSchedule(expression, { tz: "UTC", count: 1 })).length).toBe(1);
    }
    for (const [expression] of INVALID.filter(([, reason]) => !/fields/.test(String(reason)))) {
      expect(cronProblem(expression)).toBeDefined();
      // It throws at once or rejects, depending on where it fails: either way, refused.
      const preview = async () => boss.previewSchedule(expression, { tz: "UTC", count: 1 });
      await expect(preview()).rejects.toThrow();
    }
  });

  test("npm start with INTEL_REFRESH_CRON=99 99 99 99 99 stops at once (exit 2) and names the variable", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "wpreport-cron-"));
    try {
      const result = await runProcess([process.execPath, "server/start/main.ts"], {
        cwd: ROOT,
        env: { ...process.env, DATA_DIR: dataDir, PORT: "0", INTEL_REFRESH_CRON: "99 99 99 99 99" },
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("INTEL_REFRESH_CRON");
      expect(result.stderr).toContain("99 99 99 99 99");
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
