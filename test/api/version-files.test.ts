/**
 * Versions from plugins' files, end to end through the API on both backends: a loopback site
 * (test/analyzer/sites/version-files) whose plugins load assets that carry no version of
 * theirs (none, WordPress's, a Unix time, a date, a bare `1`) and publish their readme.txt,
 * changelogs, translation templates and manifests. A passive report reads only what it
 * needs, within its caps; an aggressive one reads more and settles what passive could not.
 * The stored report is the one returned.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Report } from "../../shared/report.ts";
import { type StaticSite, startStaticSite } from "../analyzer/sites/static-site.ts";
import { BACKENDS } from "../helpers/databases.ts";
import { expectValidReport } from "../helpers/report-schema.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

const versions = (report: Report) => Object.fromEntries(report.plugins.map((plugin) => [plugin.slug, plugin.version]));
/** Requests for a plugin's files other than its assets and readme. */
const fileReads = (site: StaticSite) =>
  site.hits.filter((hit) =>
    /\/plugins\/[^/]+\/(?:languages\/|lang\/|changelog\.txt|CHANGELOG\.md|package\.json|composer\.json)/.test(hit),
  );

describe.each(BACKENDS)("versions from plugins' files through the API on %s", (backend) => {
  let service: TestService;
  let site: StaticSite;
  let token: string;
  beforeAll(async () => {
    site = startStaticSite("version-files");
    service = await startTestService({ backend, env: { AGGRESSIVE_MAX_REQUESTS: "300" } });
    ({ token } = await service.token());
  });
  afterAll(async () => {
    site?.stop();
    await service?.stop();
  });

  test("passive: each version from the file that states it, none guessed, reads within the caps", async () => {
    site.hits.length = 0;
    const created = await service.call<Report>("POST", "/api/generate-report", { token, body: { url: site.url } });
    expect(created.status).toBe(201);
    const report = created.body;
    expectValidReport(report);
    expect(report.mode).toBe("passive");
    expect(versions(report)).toEqual({
      "foo-gallery": "2.4.1",
      "acme-forms": "3.1.0",
      "quick-blocks": "1.8.2",
      "lazy-embed": "0.9.4",
      "stale-readme": "1.3.0",
      "split-plugin": null,
    });
    // The first decisive answer ends a plugin's reads: foo-gallery's .pot settled it.
    expect(site.hits).toContain("GET /wp-content/plugins/foo-gallery/languages/foo-gallery.pot");
    expect(site.hits).not.toContain("GET /wp-content/plugins/foo-gallery/changelog.txt");
    // lazy-embed's readme settled it: no other file asked. Build files are for aggressive mode.
    expect(fileReads(site).filter((hit) => hit.includes("lazy-embed"))).toEqual([]);
    expect(fileReads(site).filter((hit) => /package\.json|composer\.json|\/lang\//.test(hit))).toEqual([]);
    expect(fileReads(site).length).toBe(10);

    const stored = await service.call<Report>("GET", `/api/report/${report.id}`, { token });
    expect(versions(stored.body)).toEqual(versions(report));
    const acme = stored.body.plugins.find((plugin) => plugin.slug === "acme-forms");
    expect(acme?.evidence).toContainEqual(
      expect.objectContaining({ source: "changelog", url: `${site.url}wp-content/plugins/acme-forms/changelog.txt` }),
    );
  });

  test("aggressive: more files read, the split readme settled by composer.json, the boilerplate's package.json ignored", async () => {
    site.hits.length = 0;
    const created = await service.call<Report>("POST", "/api/generate-report", {
      token,
      body: { url: site.url, mode: "aggressive" },
    });
    expect(created.status).toBe(201);
    const report = created.body;
    expectValidReport(report);
    expect(report.mode).toBe("aggressive");
    expect(versions(report)).toMatchObject({
      "foo-gallery": "2.4.1",
      "split-plugin": "2.1.0",
      "stale-readme": "1.3.0",
    });
    const split = report.plugins.find((plugin) => plugin.slug === "split-plugin");
    expect(split?.evidence.map((item) => item.source)).toContain("composer_json");
    expect(split?.evidence.find((item) => item.source === "package_json")?.value).toContain("not counted");
    // foo-gallery: its package.json agrees with the .pot, two sources: its composer.json is not asked.
    expect(site.hits).toContain("GET /wp-content/plugins/foo-gallery/package.json");
    expect(site.hits).not.toContain("GET /wp-content/plugins/foo-gallery/composer.json");
    // The requests count the version files: within the budget.
    expect(report.enumeration?.requests).toBeLessThanOrEqual(300);
  });
});
