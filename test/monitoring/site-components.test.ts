/**
 * site_components: the components of each site's latest completed report. Migration 0016 fills
 * it from the reports already stored (SQL), the reports' outcome listener keeps it (TypeScript):
 * both must say the same thing, and a report finishing after a newer one must not win. Both
 * backends.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";
import { siteComponentsListener, siteComponentsOf } from "../../server/monitoring/vulnerabilities/site-components.ts";
import { newId } from "../../server/platform/ids.ts";
import type { Report } from "../../shared/report.ts";
import { oneLine } from "../../shared/untrusted-text.ts";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../helpers/databases.ts";

const MIGRATION = path.join(import.meta.dir, "../../server/platform/db/migrations/0016_site_components.sql");
/** The migration's backfill statement, run again on reports stored after it. */
const BACKFILL =
  readFileSync(MIGRATION, "utf8")
    .split("-- Backfill")[1]
    ?.replace(/^[^\n]*\n[^\n]*\n/, "") ?? "";

const vulnerability = (id: string, cve: string[]) => ({ id, cve, title: "t", severity: "high" });
const component = (slug: string, version: string | null, extra: Record<string, unknown> = {}) => ({
  slug,
  name: `${slug}\u0007 name`,
  version,
  vulnerabilities: [],
  ...extra,
});

/** The parts of a report body site_components reads; the rest is not needed here. */
function body(id: string, url: string, parts: Partial<Record<keyof Report, unknown>>): Report {
  return {
    id,
    url,
    status: "completed",
    wordpress: null,
    theme: null,
    plugins: [],
    metadata: {},
    ...parts,
  } as unknown as Report;
}

const WORDPRESS = {
  wordpress: { detected: true, version: "6.1.9", vulnerabilities: [vulnerability("wf-core-1", ["CVE-2026-1"])] },
  theme: component("Child-Theme", "1.0", { parent: component("twentytwentythree", "1.2") }),
  installed_themes: [component("twentytwentythree", "1.1"), component("astra", null)],
  plugins: [
    component("akismet", "5.3", { vulnerabilities: [vulnerability("wf-ak-1", ["CVE-2026-2", "CVE-2026-3"])] }),
    component("Contact-Form-7", "5.9"),
    component("akismet", "5.2"),
  ],
};

type Row = Record<string, unknown> & { component_type: string; slug: string; name: string | null; version?: unknown };

for (const backend of BACKENDS) {
  describe(`site_components (${backend})`, () => {
    let db: TestDatabase;
    let accountId: string;
    let clock = Date.parse("2026-11-01T00:00:00Z");

    beforeAll(async () => {
      db = await createTestDatabase(backend);
      accountId = newId("acc");
      await db.sql`insert into accounts (id, email, plan_id) values (${accountId}, ${`${accountId}@example.com`}, 'starter')`;
    });
    afterAll(async () => {
      await db?.destroy();
    });

    /** Stores a report row (each newer than the previous one) and returns its body. */
    async function store(
      url: string,
      parts: Partial<Record<keyof Report, unknown>>,
      options: { status?: "completed" | "failed" | "running"; environment?: string; monitorId?: string } = {},
    ): Promise<Report> {
      const id = newId("rep");
      const report = body(id, url, { ...parts, status: options.status ?? "completed" });
      const metadata = options.environment ? { environment: options.environment } : {};
      clock += 60_000;
      await db.sql`
        insert into reports (id, account_id, url, site_key, status, metadata, body, created_at, monitor_id)
        values (${id}, ${accountId}, ${url}, ${new URL(url).host}, ${options.status ?? "completed"},
                ${db.sql.json(metadata)}, ${db.sql.json(report as never)}, ${new Date(clock)}, ${options.monitorId ?? null})`;
      return report;
    }

    async function rows(siteKey: string, environment = "") {
      return db.sql<Row[]>`
        select component_type, slug, name, version, known_advisories, report_id, monitor_id
        from site_components
        where account_id = ${accountId} and site_key = ${siteKey} and environment = ${environment}
        order by component_type, slug`;
    }

    /** Names as events carry them (one line, cleaned): the backfill stores the report's text as is. */
    const comparable = (list: Row[]) =>
      list
        .map((row) => ({
          ...row,
          name: row.name === null ? null : oneLine(row.name).replace(/\s+/g, " "),
          known_advisories: [...(row.known_advisories as string[])].sort(),
        }))
        .sort((a, b) => a.component_type.localeCompare(b.component_type) || a.slug.localeCompare(b.slug));
    const expected = (report: Report, monitorId: string | null = null) =>
      comparable(siteComponentsOf(report).map((row) => ({ ...row, report_id: report.id, monitor_id: monitorId })));

    test("the migration's backfill and the listener list the same components of the latest completed report", async () => {
      await store("https://a.example/", { plugins: [component("old-plugin", "1.0")] });
      const latest = await store("https://a.example/", WORDPRESS, { monitorId: "mon_a" });
      await store("https://a.example/", {}, { status: "failed" });
      const staging = await store(
        "https://a.example/",
        { plugins: [component("hello-dolly", "1.7")] },
        { environment: "staging" },
      );
      await store("https://static.example/", { wordpress: { detected: false, version: null, vulnerabilities: [] } });

      await db.sql.unsafe(BACKFILL);
      const backfilled = comparable(await rows("a.example"));
      expect(backfilled).toEqual(expected(latest, "mon_a"));
      // Core, the theme and its parent, installed themes, plugins; each once, the first one listed winning.
      expect(backfilled.map((row) => `${row.component_type}:${row.slug}@${row.version}`)).toEqual([
        "core:wordpress@6.1.9",
        "plugin:akismet@5.3",
        "plugin:contact-form-7@5.9",
        "theme:astra@null",
        "theme:child-theme@1.0",
        "theme:twentytwentythree@1.2",
      ]);
      expect(backfilled.find((row) => row.slug === "akismet")?.known_advisories).toEqual([
        "CVE-2026-2",
        "CVE-2026-3",
        "wf-ak-1",
      ]);
      expect(comparable(await rows("a.example", "staging"))).toEqual(expected(staging));
      expect((await rows("static.example")).length).toBe(0);

      // The listener writes the same rows for the same report.
      await db.sql`delete from site_components`;
      await siteComponentsListener()(db.sql, {
        accountId,
        report: latest,
        failure: null,
        monitorId: "mon_a",
        billable: true,
      });
      expect(comparable(await rows("a.example"))).toEqual(backfilled);
    });

    test("a report that finishes after a newer one does not replace its components; a failed one changes nothing", async () => {
      const listener = siteComponentsListener();
      const older = await store("https://b.example/", { plugins: [component("woocommerce", "8.0")] });
      const newer = await store("https://b.example/", { plugins: [component("woocommerce", "9.1")] });
      const outcome = (report: Report) => ({ accountId, report, failure: null, monitorId: null, billable: true });
      await listener(db.sql, outcome(newer));
      await listener(db.sql, outcome(older));
      expect((await rows("b.example")).map((row) => row.version)).toEqual(["9.1"]);
      const failed = await store("https://b.example/", {}, { status: "failed" });
      await listener(db.sql, { ...outcome(failed), failure: { code: "site_unreachable", detail: "x" } });
      expect((await rows("b.example")).map((row) => row.report_id)).toEqual([newer.id]);
    });

    test("reports of one site finishing at once take turns: the newest's components, no key collision", async () => {
      const listener = siteComponentsListener();
      const made: Report[] = [];
      for (let i = 0; i < 4; i++)
        made.push(
          await store("https://c.example/", { plugins: [component("jetpack", `13.${i}`)] }, { status: "running" }),
        );
      const outcome = (report: Report) => ({ accountId, report, failure: null, monitorId: null, billable: true });
      // As the worker stores them: each report completed and its listener run in one transaction,
      // all at once (on PostgreSQL, on separate connections, none seeing the others' uncommitted rows).
      // A barrier after the updates makes them overlap for sure.
      let arrived = 0;
      let release = () => {};
      const allUpdated = new Promise<void>((resolve) => {
        release = resolve;
      });
      await Promise.all(
        made.map((report) =>
          db.sql.begin(async (tx) => {
            await tx`update reports set status = 'completed' where id = ${report.id}`;
            if (++arrived === made.length || backend === "pglite") release();
            await allUpdated;
            await listener(tx, outcome({ ...report, status: "completed" }));
          }),
        ),
      );
      expect((await rows("c.example")).map((row) => row.version)).toEqual(["13.3"]);
    });
  });
}
