/**
 * SARIF through the running service: the API (GET /api/report/{id}/sarif with ?sarif_location=,
 * and the deprecated Accept: application/sarif+json on GET /api/report/{id}) and the web download
 * (/reports/{id}/report.sarif),
 * for a real WordPress report, a test blog's report and a failed report — each validated
 * against the official SARIF 2.1.0 schema and GitHub's requirements (test/helpers/sarif.ts).
 * The links SARIF carries (informationUri, each rule's helpUri) answer 200 here.
 * The CLI's --format sarif is in test/action/cli.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Log, ReportingDescriptor, Result, Run } from "sarif";
import type { Report } from "../../shared/report.ts";
import { HAS_WORDPRESS, WORDPRESS_URL } from "../helpers/env.ts";
import { expectValidSarif } from "../helpers/sarif.ts";
import { freePort, startTestService, type TestService } from "../helpers/service.ts";
import { type SwitchableBlog, startSwitchableBlog } from "../helpers/sites.ts";
import { WebSession } from "../helpers/web-session.ts";

const SARIF = "application/sarif+json";
const runOf = (log: Log) => log.runs[0] as Run;
const rulesOf = (log: Log) => runOf(log).tool.driver.rules as ReportingDescriptor[];
const resultsOf = (log: Log) => runOf(log).results as Result[];

describe("SARIF from the API and the web", () => {
  let service: TestService;
  let site: SwitchableBlog;
  let token: string;
  let web: WebSession;
  let report: Report;

  const sarif = (id: string, query = "") =>
    fetch(`${service.url}/api/report/${id}/sarif${query}`, { headers: { authorization: `Bearer ${token}` } });

  beforeAll(async () => {
    service = await startTestService();
    site = startSwitchableBlog();
    web = await WebSession.signup(service.url);
    // The web session's account, with an API token: both surfaces see the same reports.
    ({ token } = await service.token(web.email, "business"));
    site.compressed = false; // a finding: performance.html_compression fails
    const created = await service.call<Report>("POST", "/api/generate-report", { token, body: { url: site.url } });
    expect(created.status).toBe(201);
    report = created.body;
  });
  afterAll(async () => {
    site.stop();
    await service.stop();
  });

  test("the API's SARIF is valid, attached to .wpreport.yml by default, with the site in each message", async () => {
    const response = await sarif(report.id);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/sarif+json; charset=utf-8");
    const log = expectValidSarif(await response.json());
    const failing = report.checks.filter((check) => check.status === "fail" || check.status === "warn");
    expect(
      resultsOf(log)
        .map((result) => result.ruleId)
        .sort(),
    ).toEqual(failing.map((check) => check.id).sort());
    const compression = resultsOf(log).find((result) => result.ruleId === "performance.html_compression");
    expect(compression?.level).toBe("warning");
    expect(compression?.message.text).toContain(`Site: ${report.final_url}`);
    expect(compression?.locations?.[0]?.physicalLocation).toEqual({
      artifactLocation: { uri: ".wpreport.yml" },
      region: { startLine: 1 },
    });
    expect(rulesOf(log).find((rule) => rule.id === "performance.html_compression")?.shortDescription?.text).toBe(
      "HTML is not compressed",
    );
    expect(runOf(log).invocations?.[0]?.executionSuccessful).toBe(true);
  });

  test("?sarif_location= names the repository file; a bad one is 400 problem+json", async () => {
    const named = expectValidSarif(
      await (await sarif(report.id, "?sarif_location=.github/workflows/deploy.yml")).json(),
    );
    for (const result of resultsOf(named))
      expect(result.locations?.[0]?.physicalLocation?.artifactLocation?.uri).toBe(".github/workflows/deploy.yml");
    for (const bad of ["../secrets.yml", "https://example.com/x.yml", "/etc/passwd", "a//b", "x".repeat(257)]) {
      const response = await sarif(report.id, `?sarif_location=${encodeURIComponent(bad)}`);
      expect({ bad, status: response.status }).toEqual({ bad, status: 400 });
      expect(response.headers.get("content-type")).toContain("application/problem+json");
      expect(((await response.json()) as { code: string; detail: string }).detail).toContain("sarif_location");
    }
    // Without the SARIF Accept header the parameter changes nothing: the report as JSON.
    const json = await service.call<Report>("GET", `/api/report/${report.id}?sarif_location=action.yml`, { token });
    expect(json.status).toBe(200);
    expect(json.body.id).toBe(report.id);
  });

  test("GET /api/report/{id} with Accept: application/sarif+json (the deprecated way) answers the same SARIF", async () => {
    const viaPath = await sarif(report.id, "?sarif_location=action.yml");
    const viaAccept = await fetch(`${service.url}/api/report/${report.id}?sarif_location=action.yml`, {
      headers: { authorization: `Bearer ${token}`, accept: SARIF },
    });
    expect(viaAccept.status).toBe(200);
    expect(viaAccept.headers.get("content-type")).toBe("application/sarif+json; charset=utf-8");
    const body = await viaPath.text();
    expect(await viaAccept.text()).toBe(body);
    // Both are the same representation: one ETag, and If-None-Match gives 304 on either.
    const etag = viaPath.headers.get("etag") as string;
    expect(viaAccept.headers.get("etag")).toBe(etag);
    const revalidated = await fetch(`${service.url}/api/report/${report.id}/sarif?sarif_location=action.yml`, {
      headers: { authorization: `Bearer ${token}`, "if-none-match": etag },
    });
    expect(revalidated.status).toBe(304);
    // Unknown ids are 404 here too; an Accept that rules out JSON of any kind is 406.
    expect((await sarif("rep_00000000000000000000000000")).status).toBe(404);
    const html = await fetch(`${service.url}/api/report/${report.id}/sarif`, {
      headers: { authorization: `Bearer ${token}`, accept: "text/html" },
    });
    expect(html.status).toBe(406);
    // And without a token, 401 like every API route.
    expect((await fetch(`${service.url}/api/report/${report.id}/sarif`)).status).toBe(401);
  });

  test("the links in the SARIF answer 200: the check catalogue page, with a section per rule", async () => {
    const log = expectValidSarif(await (await sarif(report.id)).json());
    const informationUri = runOf(log).tool.driver.informationUri as string;
    expect(informationUri).toBe(`${service.url}/docs/checks`);
    const page = await fetch(informationUri); // public: no session, no token
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    const html = await page.text();
    for (const rule of rulesOf(log)) {
      const helpUri = new URL(rule.helpUri as string);
      expect(helpUri.origin + helpUri.pathname).toBe(informationUri);
      expect(html).toContain(`id="${decodeURIComponent(helpUri.hash.slice(1))}"`);
    }
    expect(html).toContain("HTML is not compressed");
  });

  test("the web download is the same SARIF, valid, with the same ?sarif_location=", async () => {
    const download = await web.get(`/reports/${report.id}/report.sarif?sarif_location=action.yml`);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("application/sarif+json; charset=utf-8");
    expect(download.headers.get("content-disposition")).toContain(`${report.id}.sarif`);
    const log = expectValidSarif(await download.json());
    const api = expectValidSarif(await (await sarif(report.id, "?sarif_location=action.yml")).json());
    expect(log).toEqual(api);
    expect((await web.get(`/reports/${report.id}/report.sarif?sarif_location=../x`)).status).toBe(400);
  });

  test("a failed report is an unsuccessful run with the reason and no results, through the API and the web", async () => {
    const closedPort = await freePort();
    const accepted = await service.call<Report>("POST", "/api/generate-report", {
      token,
      body: { url: `http://127.0.0.1:${closedPort}/` },
      headers: { prefer: "respond-async" },
    });
    expect(accepted.status).toBe(202);
    let failed = accepted.body;
    for (let i = 0; i < 100 && failed.status !== "failed"; i++) {
      await Bun.sleep(50);
      failed = (await service.call<Report>("GET", `/api/report/${failed.id}`, { token })).body;
    }
    expect(failed.status).toBe("failed");
    for (const body of [
      await (await sarif(failed.id)).json(),
      await (await web.get(`/reports/${failed.id}/report.sarif`)).json(),
    ]) {
      const run = runOf(expectValidSarif(body));
      expect(run.results).toEqual([]);
      expect(run.invocations?.[0]?.executionSuccessful).toBe(false);
      const notes = run.invocations?.[0]?.toolExecutionNotifications?.map((note) => note.message.text ?? "") ?? [];
      expect(notes[0]).toContain("failed");
      expect(notes.some((note) => note.includes("site_unreachable"))).toBe(true);
    }
  });
});

describe.skipIf(!HAS_WORDPRESS)("SARIF of the real WordPress fixture through the API", () => {
  let service: TestService;
  let token: string;
  let report: Report;
  beforeAll(async () => {
    service = await startTestService();
    ({ token } = await service.token(undefined, "business"));
    const created = await service.call<Report>("POST", "/api/generate-report", { token, body: { url: WORDPRESS_URL } });
    expect(created.status).toBe(201);
    report = created.body;
  });
  afterAll(() => service.stop());

  test("valid SARIF that code scanning accepts, with the fixture's security findings as security alerts", async () => {
    const response = await fetch(`${service.url}/api/report/${report.id}/sarif`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const log = expectValidSarif(await response.json());
    const ids = resultsOf(log).map((result) => result.ruleId);
    // Facts of the fixture (test/api/wordpress-e2e.test.ts): plain HTTP, XML-RPC on, readme.html public.
    for (const id of ["security.https", "security.xmlrpc_enabled", "security.readme_exposed"])
      expect(ids).toContain(id);
    const https = rulesOf(log).find((rule) => rule.id === "security.https");
    expect(https?.shortDescription?.text).toBe("Site is not served over HTTPS");
    expect(https?.properties).toMatchObject({ tags: ["security"], "security-severity": "8.0" });
    // Every rule of the report is a rule GitHub shows with a description and help.
    expect(rulesOf(log)).toHaveLength(report.checks.length);
  });
});
