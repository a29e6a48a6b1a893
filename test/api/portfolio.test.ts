/**
 * The portfolio through the API, on both backends, with real reports of the real WordPress
 * fixture and of a local blog whose deploy exposes, then removes, a `.env` file:
 * GET /api/sites (paging, filters, CSV), GET /api/sites/{id}, GET /api/components and the
 * client report (HTML with its CSP, PDF, 406 without Chromium, periods).
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import path from "node:path";
import { siteId } from "../../server/platform/ids.ts";
import {
  type ComponentSites,
  ComponentSitesSchema,
  type SiteDetail,
  SiteDetailSchema,
  type SiteList,
  SiteListSchema,
} from "../../shared/portfolio-api.ts";
import type { Report } from "../../shared/report.ts";
import { parseCsv } from "../helpers/csv.ts";
import { BACKENDS } from "../helpers/databases.ts";
import { HAS_WORDPRESS, HAS_WORDPRESS_VARIANT, WORDPRESS_URL, WORDPRESS_VARIANT_URL } from "../helpers/env.ts";
import { expectSchema } from "../helpers/expect-schema.ts";
import { generateReport } from "../helpers/generate.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { type EnvExposingBlog, startEnvExposingBlog } from "../helpers/sites.ts";

setDefaultTimeout(60_000);

const INTEL_FILE = path.resolve(import.meta.dir, "../platform/intel/intel.json");
const PERIOD = new Date().toISOString().slice(0, 7);

describe.skipIf(!HAS_WORDPRESS || !HAS_WORDPRESS_VARIANT).each(BACKENDS)("the portfolio API on %s", (backend) => {
  let service: TestService;
  let blog: EnvExposingBlog;
  let token: string;
  let accountId: string;
  const reports: Record<string, Report[]> = { fixture: [], variant: [], blog: [] };
  let blogKey = "";

  const generate = async (url: string, environment?: string) => {
    const report = await generateReport(service, token, { url, metadata: environment ? { environment } : {} });
    expect(report.status).toBe("completed");
    return report;
  };

  beforeAll(async () => {
    service = await startTestService({ backend, env: { INTEL_FILE } });
    ({ token, accountId } = await service.token(undefined, "business"));
    blog = startEnvExposingBlog();
    blogKey = new URL(blog.url).host;
    reports.fixture?.push(await generate(WORDPRESS_URL, "production"), await generate(WORDPRESS_URL, "production"));
    reports.variant?.push(await generate(WORDPRESS_VARIANT_URL));
    // A bad deploy leaves a .env in the web root; the next one removes it.
    blog.envExposed = true;
    reports.blog?.push(await generate(blog.url, "staging"));
    blog.envExposed = false;
    reports.blog?.push(await generate(blog.url, "staging"));
  });
  afterAll(async () => {
    blog?.stop();
    await service?.stop();
  });

  const fixtureKey = new URL(WORDPRESS_URL).host;
  const variantKey = new URL(WORDPRESS_VARIANT_URL).host;

  test("GET /api/sites: every site by site and environment, with grade, trend, vulnerabilities and links", async () => {
    const response = await service.call<SiteList>("GET", "/api/sites", { token });
    expect(response.status).toBe(200);
    expectSchema(SiteListSchema, response.body);
    const { data, next_cursor } = response.body;
    expect(next_cursor).toBeNull();
    expect(data.map((site) => [site.site, site.environment])).toEqual(
      [
        [fixtureKey, "production"],
        [variantKey, null],
        [blogKey, "staging"],
      ].sort((a, b) => `${a[0]}\n${a[1] ?? ""}`.localeCompare(`${b[0]}\n${b[1] ?? ""}`)),
    );
    const fixture = data.find((site) => site.site === fixtureKey);
    const [first, second] = reports.fixture as [Report, Report];
    expect(fixture).toMatchObject({
      id: siteId(accountId, fixtureKey, "production"),
      url: WORDPRESS_URL,
      report_count: 2,
      last_report: { id: second.id, status: "completed" },
      latest: { report_id: second.id, score: second.summary?.score, grade: second.summary?.grade },
      monitor: null,
    });
    expect(fixture?.trend.map((point) => point.report_id)).toEqual([first.id, second.id]);
    expect(fixture?.score_change).toBe((second.summary?.score ?? 0) - (first.summary?.score ?? 0));
    expect(fixture?.title).toBe(second.seo?.title ?? null);
    // The intel file lists an advisory for the fixture's core version and one for akismet 5.0.2.
    const vulnerable = [
      ...(second.wordpress?.vulnerabilities ?? []),
      ...second.plugins.flatMap((plugin) => plugin.vulnerabilities),
      ...(second.theme?.vulnerabilities ?? []),
    ];
    expect(vulnerable.length).toBeGreaterThan(0);
    expect(fixture?.vulnerabilities.total).toBe(vulnerable.length);
    expect(fixture?.latest?.failed_checks.high).toBe(second.summary?.failed.high);
    expect(fixture?.links).toEqual({
      api: `${service.url}/api/sites/${fixture?.id}`,
      web: `${service.url}/sites/${fixture?.id}`,
    });
    const variant = data.find((site) => site.site === variantKey);
    expect(variant).toMatchObject({ id: siteId(accountId, variantKey, ""), environment: null, score_change: null });
    expect(variant?.trend).toHaveLength(1);
    // The blog's second report fixed a critical finding: the grade went up.
    const [exposed, fixed] = reports.blog as [Report, Report];
    expect(exposed.summary?.grade).toBe("F");
    const blogSite = data.find((site) => site.site === blogKey);
    expect(blogSite?.trend.map((point) => point.grade as string)).toEqual(["F", fixed.summary?.grade as string]);
    expect(blogSite?.score_change).toBe((fixed.summary?.score ?? 0) - (exposed.summary?.score ?? 0));
  });

  test("paging follows next_cursor and the Link header; filters; bad cursors and limits are 400", async () => {
    const all = (await service.call<SiteList>("GET", "/api/sites", { token })).body.data.map((site) => site.id);
    const seen: string[] = [];
    let path = "/api/sites?limit=1";
    for (let page = 0; page < 5 && path; page++) {
      const response = await service.call<SiteList>("GET", path, { token });
      expect(response.status).toBe(200);
      seen.push(...response.body.data.map((site) => site.id));
      const link = response.headers.get("link");
      if (response.body.next_cursor) {
        expect(link).toContain(`after=${response.body.next_cursor}`);
        expect(link).toContain('rel="next"');
        const next = new URL(/<([^>]+)>/.exec(link ?? "")?.[1] ?? "");
        path = `${next.pathname}${next.search}`;
      } else {
        expect(link).toBeNull();
        path = "";
      }
    }
    expect(seen).toEqual(all);

    const byUrl = await service.call<SiteList>("GET", `/api/sites?url=${encodeURIComponent(`${WORDPRESS_URL}?p=1`)}`, {
      token,
    });
    expect(byUrl.body.data.map((site) => site.site)).toEqual([fixtureKey]);
    const noEnvironment = await service.call<SiteList>("GET", "/api/sites?environment=", { token });
    expect(noEnvironment.body.data.map((site) => site.site)).toEqual([variantKey]);
    const staging = await service.call<SiteList>("GET", "/api/sites?environment=staging", { token });
    expect(staging.body.data.map((site) => site.site)).toEqual([blogKey]);

    for (const bad of [
      "/api/sites?limit=0",
      "/api/sites?limit=101",
      "/api/sites?after=sit_00000000000000000000000000",
      "/api/sites?after=rep_nope",
      "/api/sites?url=notaurl",
      "/api/sites?format=xml",
    ]) {
      const response = await service.call<{ code: string }>("GET", bad, { token });
      expect({ bad, status: response.status, code: response.body.code }).toEqual({
        bad,
        status: 400,
        code: "invalid_request",
      });
    }
    expect((await service.call("GET", "/api/sites")).status).toBe(401);
  });

  test("another account sees none of these sites, even by their ids", async () => {
    const other = await service.token();
    const theirs = await service.call<SiteList>("GET", "/api/sites", { token: other.token });
    expect(theirs.body.data).toEqual([]);
    const id = siteId(accountId, fixtureKey, "production");
    expect((await service.call("GET", `/api/sites/${id}`, { token: other.token })).status).toBe(404);
    expect(
      (await service.call("GET", `/api/sites/${id}/client-report?period=${PERIOD}`, { token: other.token })).status,
    ).toBe(404);
    const components = await service.call<ComponentSites>("GET", "/api/components?slug=akismet", {
      token: other.token,
    });
    expect(components.body.data).toEqual([]);
  });

  test("GET /api/sites/{id}: score history, reports, components and open vulnerabilities with their fixes", async () => {
    const id = siteId(accountId, fixtureKey, "production");
    const response = await service.call<SiteDetail>("GET", `/api/sites/${id}`, { token });
    expect(response.status).toBe(200);
    expectSchema(SiteDetailSchema, response.body);
    const site = response.body;
    const [first, second] = reports.fixture as [Report, Report];
    expect(site.history.map((point) => `${point.report_id}:${point.score}`)).toEqual([
      `${first.id}:${first.summary?.score}`,
      `${second.id}:${second.summary?.score}`,
    ]);
    expect(site.reports.map((report) => report.id)).toEqual([second.id, first.id]);
    expect(site.client_report_periods).toEqual([PERIOD]);
    const akismet = site.components.find((component) => component.slug === "akismet");
    const reported = second.plugins.find((plugin) => plugin.slug === "akismet");
    expect(akismet).toMatchObject({ type: "plugin", version: reported?.version ?? null });
    expect(site.components[0]).toMatchObject({ type: "core", slug: "wordpress", version: second.wordpress?.version });
    expect(site.open_vulnerabilities.length).toBe(site.vulnerabilities.total);
    const akismetAdvisory = site.open_vulnerabilities.find((open) => open.component.slug === "akismet");
    expect(akismetAdvisory?.fix).toBe(`update akismet to ${akismetAdvisory?.vulnerability.fixed_in}`);
    // Most severe first.
    const order = ["critical", "high", "medium", "low", "info"];
    const ranks = site.open_vulnerabilities.map((open) => order.indexOf(open.vulnerability.severity));
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));

    for (const unknown of ["sit_00000000000000000000000000", "nope", "rep_01m807a3aghb72nx4r1yzpj8en"]) {
      const missing = await service.call<{ code: string }>("GET", `/api/sites/${unknown}`, { token });
      expect({ unknown, status: missing.status, code: missing.body.code }).toEqual({
        unknown,
        status: 404,
        code: "not_found",
      });
    }
  });

  test("GET /api/components: which sites run a component, with versions and whether they are vulnerable", async () => {
    const akismet = await service.call<ComponentSites>("GET", "/api/components?slug=AKISMET&type=plugin", { token });
    expect(akismet.status).toBe(200);
    expectSchema(ComponentSitesSchema, akismet.body);
    const second = (reports.fixture as Report[])[1] as Report;
    const installed = second.plugins.find((plugin) => plugin.slug === "akismet");
    expect(akismet.body.data).toEqual([
      expect.objectContaining({
        site: {
          id: siteId(accountId, fixtureKey, "production"),
          site: fixtureKey,
          url: WORDPRESS_URL,
          environment: "production",
        },
        report_id: second.id,
        type: "plugin",
        slug: "akismet",
        version: installed?.version ?? null,
        vulnerable: (installed?.vulnerabilities.length ?? 0) > 0,
      }),
    ]);
    expect(akismet.body.data[0]?.vulnerable).toBe(true);

    // Core runs on both fixture sites (the blog is WordPress-like too).
    const core = await service.call<ComponentSites>("GET", "/api/components?slug=wordpress&type=core", { token });
    expect(core.body.data.map((row) => row.site.site)).toEqual(expect.arrayContaining([fixtureKey, variantKey]));
    expect(core.body.data.every((row) => row.type === "core")).toBe(true);
    const variant = (reports.variant as Report[])[0] as Report;
    const theme = await service.call<ComponentSites>(
      "GET",
      `/api/components?slug=${variant.theme?.slug ?? "none"}&type=theme`,
      { token },
    );
    expect(theme.body.data.map((row) => row.site.site)).toContain(variantKey);

    const paged = await service.call<ComponentSites>("GET", "/api/components?slug=wordpress&limit=1", { token });
    expect(paged.body.data).toHaveLength(1);
    expect(paged.body.next_cursor).toBe(paged.body.data[0]?.site.id ?? "");
    expect(paged.headers.get("link")).toContain(`after=${paged.body.next_cursor}`);

    const none = await service.call<ComponentSites>("GET", "/api/components?slug=no-such-plugin", { token });
    expect(none.body).toEqual({ data: [], next_cursor: null });
    for (const bad of ["/api/components", "/api/components?slug=", "/api/components?slug=x&type=plugins"]) {
      expect((await service.call("GET", bad, { token })).status).toBe(400);
    }
  });

  test("CSV: ?format=csv and Accept: text/csv give RFC 4180 with every site; JSON stays the default", async () => {
    const byQuery = await fetch(`${service.url}/api/sites?format=csv`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const byAccept = await fetch(`${service.url}/api/sites`, {
      headers: { authorization: `Bearer ${token}`, accept: "text/csv" },
    });
    const byPath = await fetch(`${service.url}/api/sites.csv`, { headers: { authorization: `Bearer ${token}` } });
    for (const response of [byQuery, byAccept, byPath]) {
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8; header=present");
      expect(response.headers.get("content-disposition")).toMatch(
        /^attachment; filename="portfolio-\d{4}-\d{2}-\d{2}\.csv"$/,
      );
    }
    const text = await byQuery.text();
    expect(text.endsWith("\r\n")).toBe(true);
    expect(text.replace(/\r\n/g, "")).not.toContain("\n");
    const [header, ...rows] = parseCsv(text);
    expect(header?.slice(0, 6)).toEqual(["site_id", "site", "url", "environment", "title", "grade"]);
    const json = (await service.call<SiteList>("GET", "/api/sites", { token })).body.data;
    expect(rows.map((row) => row[0])).toEqual(json.map((site) => site.id));
    const column = (name: string) => header?.indexOf(name) ?? -1;
    const fixture = rows.find((row) => row[column("site")] === fixtureKey);
    const fixtureJson = json.find((site) => site.site === fixtureKey);
    expect(fixture?.[column("grade")]).toBe(fixtureJson?.latest?.grade ?? "");
    expect(fixture?.[column("trend")]).toBe(fixtureJson?.trend.map((point) => point.score).join(" ") ?? "");
    expect(await byAccept.text()).toBe(text);
    expect(await byPath.text()).toBe(text);
    // A limit cuts it; the rest is one Link away.
    const part = await fetch(`${service.url}/api/sites.csv?limit=1`, { headers: { authorization: `Bearer ${token}` } });
    expect(parseCsv(await part.text())).toHaveLength(2);
    expect(part.headers.get("link")).toContain(`/api/sites.csv?limit=1&after=${json[0]?.id}`);
    const json2 = await fetch(`${service.url}/api/sites`, {
      headers: { authorization: `Bearer ${token}`, accept: "application/json, text/csv;q=0.5" },
    });
    expect(json2.headers.get("content-type")).toStartWith("application/json");
    const refused = await service.call<{ code: string }>("GET", "/api/sites", {
      token,
      headers: { accept: "application/xml" },
    });
    expect(refused.status).toBe(406);
  });

  test("client report: HTML with the agency's branding, its own CSP, what changed and was fixed; PDF", async () => {
    await service.running.services.branding.save(accountId, {
      name: "Acme Web Agency",
      color: "#aa3300",
      logo: new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"></svg>'),
    });
    const id = siteId(accountId, blogKey, "staging");
    const response = await fetch(`${service.url}/api/sites/${id}/client-report?period=${PERIOD}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toStartWith("default-src 'none'; style-src 'sha256-");
    expect(csp).not.toContain("script-src");
    const html = await response.text();
    // The stylesheet's hash is the one in the policy.
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? "";
    const hash = new Bun.CryptoHasher("sha256").update(style).digest("base64");
    expect(csp).toContain(`'sha256-${hash}'`);
    expect(style).toContain("--brand:#aa3300");
    expect(html).toContain("Acme Web Agency");
    expect(html).toContain('src="data:image/svg+xml;base64,');
    expect(html).not.toMatch(/<script/i);
    // White-label: nothing names us (the intel sources' attribution lines are the sources' own words).
    expect(html.replace(/<p class="attribution">[^<]*<\/p>/g, "")).not.toMatch(/wpreport/i);
    const [exposed, fixed] = reports.blog as [Report, Report];
    expect(html).toContain(`id="grade">${fixed.summary?.grade}<`);
    // What was fixed: the exposed .env (a critical finding) is gone.
    const fixedSection = html.slice(html.indexOf("What was fixed"), html.indexOf("Open issues and how"));
    const envCheck = exposed.checks.find((check) => check.id === "security.env_file_exposed");
    expect(envCheck?.status).toBe("fail");
    expect(fixedSection).toContain(envCheck?.title ?? "-");
    // Open issues carry their fixes (the checks' remediation).
    const open = fixed.checks.find((check) => check.status === "fail" && check.severity === "high");
    expect(open).toBeDefined();
    expect(html).toContain("Fix:");
    expect(
      html
        .replace(/&#x27;|&#39;/g, "'")
        .replace(/&quot;/g, '"')
        .replace(/&amp;/g, "&"),
    ).toContain(open?.remediation ?? "-");

    const pdf = await fetch(`${service.url}/api/sites/${id}/client-report?period=${PERIOD}`, {
      headers: { authorization: `Bearer ${token}`, accept: "application/pdf" },
    });
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get("content-type")).toBe("application/pdf");
    expect(pdf.headers.get("content-disposition")).toBe(
      `attachment; filename="client-report-${blogKey.replace(":", "_")}-staging-${PERIOD}.pdf"`,
    );
    expect(new TextDecoder().decode((await pdf.arrayBuffer()).slice(0, 5))).toBe("%PDF-");
  });

  test("client report: bad and empty periods, unknown sites", async () => {
    const id = siteId(accountId, fixtureKey, "production");
    const cases: [string, number, string][] = [
      [`/api/sites/${id}/client-report`, 400, "invalid_request"],
      [`/api/sites/${id}/client-report?period=2026-13`, 400, "invalid_request"],
      [`/api/sites/${id}/client-report?period=26-11`, 400, "invalid_request"],
      [`/api/sites/${id}/client-report?period=${PERIOD}&format=docx`, 400, "invalid_request"],
      [`/api/sites/${id}/client-report?period=2019-01`, 404, "no_report"],
      // Outside the site's reports altogether (issue 30: 9999-12 was a PostgreSQL error, 500).
      [`/api/sites/${id}/client-report?period=9999-12`, 404, "no_report"],
      [`/api/sites/${id}/client-report?period=0000-01`, 404, "no_report"],
      [`/api/sites/sit_00000000000000000000000000/client-report?period=${PERIOD}`, 404, "not_found"],
    ];
    for (const [url, status, code] of cases) {
      const response = await service.call<{ code: string; periods?: string[] }>("GET", url, { token });
      expect({ url, status: response.status, code: response.body.code }).toEqual({ url, status, code });
      if (status === 404 && !url.includes("sit_0000")) expect(response.body.periods).toEqual([PERIOD]);
    }
    const refused = await service.call<{ code: string }>("GET", `/api/sites/${id}/client-report?period=${PERIOD}`, {
      token,
      headers: { accept: "application/json" },
    });
    expect(refused.status).toBe(406);
  });
});

describe("client reports on a service without Chromium", () => {
  let service: TestService;
  let blog: EnvExposingBlog;

  beforeAll(async () => {
    service = await startTestService({ env: { CHROMIUM_PATH: "off" } });
    blog = startEnvExposingBlog();
  });
  afterAll(async () => {
    blog?.stop();
    await service?.stop();
  });

  test("a PDF is 406 with a problem that says why; the HTML is there", async () => {
    const { token, accountId } = await service.token();
    expect((await generateReport(service, token, { url: blog.url })).status).toBe("completed");
    const id = siteId(accountId, new URL(blog.url).host, "");
    const requests: { query: string; headers: Record<string, string> }[] = [
      { query: "&format=pdf", headers: {} },
      { query: "", headers: { accept: "application/pdf" } },
    ];
    for (const request of requests) {
      const response = await service.call<{ code: string; detail: string; available: string[] }>(
        "GET",
        `/api/sites/${id}/client-report?period=${PERIOD}${request.query}`,
        { token, headers: request.headers },
      );
      expect(response.status).toBe(406);
      expect(response.body.code).toBe("not_acceptable");
      expect(response.body.detail).toContain("CHROMIUM_PATH");
      expect(response.body.available).toEqual(["text/html"]);
    }
    const html = await fetch(`${service.url}/api/sites/${id}/client-report?period=${PERIOD}`, {
      headers: { authorization: `Bearer ${token}`, accept: "text/html,application/pdf;q=0.5" },
    });
    expect(html.status).toBe(200);
    expect(html.headers.get("content-type")).toBe("text/html; charset=utf-8");
  });
});
