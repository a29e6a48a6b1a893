/** The docs that are generated from code, or must agree with it, do. */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";
import { renderCheckDocs } from "../scripts/generate-check-docs.ts";
import { PROBLEMS } from "../server/http/problem.ts";
import { PLANS } from "../server/plans/catalogue.ts";

const root = path.join(import.meta.dir, "..");
const read = (file: string) => readFileSync(path.join(root, file), "utf8");
/** Markdown tables compared without their cell padding. */
const cells = (text: string) => text.replace(/ *\| */g, "|");

describe("docs", () => {
  test("docs/checks.md is generated from the catalogue (run `bun run docs:checks`)", () => {
    expect(read("docs/checks.md")).toBe(renderCheckDocs());
  });

  test("the README's plan table is the catalogue", () => {
    const readme = cells(read("README.md"));
    for (const plan of PLANS) {
      const price = plan.priceEurCents === null ? "—" : String(plan.priceEurCents / 100);
      expect(readme).toContain(
        `|\`${plan.id}\`|${price}|${plan.monthlyQuota}|${plan.requestsPerMinute}|${plan.concurrentAnalyses}|`,
      );
    }
  });

  test("every environment variable the configuration reads is in the README's table", () => {
    const names = [...read("server/config.ts").matchAll(/(?:read|int|url)\("([A-Z_]+)"/g)].map((m) => m[1]);
    expect(names.length).toBeGreaterThan(8);
    const readme = cells(read("README.md"));
    for (const name of names) expect(readme).toContain(`|\`${name}\`|`);
  });

  test("every problem code is documented in docs/errors.md", () => {
    const errors = cells(read("docs/errors.md"));
    for (const [code, { status }] of Object.entries(PROBLEMS)) expect(errors).toContain(`|\`${code}\`|${status}|`);
  });
});
