/**
 * The lab on the web: the analyze form's lab checkbox (unticked by default) makes a lab report
 * (Debian's Chromium), and the report page shows its Core Web Vitals with their levels, the
 * thumbnail, the long task and shift of the known-shift page, and bytes by component.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import type { Report } from "../../shared/report.ts";
import { type LabPages, startLabPages } from "../analyzer/lab/pages.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { WebSession } from "../helpers/web-session.ts";

describe.skipIf(!existsSync("/usr/bin/chromium"))("analyze form: lab, and the report page's lab section", () => {
  let service: TestService;
  let pages: LabPages;
  let web: WebSession;
  /** The report a form post redirected to. */
  const reportIdOf = (response: Response) =>
    /\/reports\/(rep_[0-9a-z]+)/.exec(response.headers.get("location") ?? "")?.[1];
  /** The report once it has finished (completed or failed), read as the web page offers it. */
  const finished = async (id: string | undefined): Promise<Report | undefined> => {
    let report: Report | undefined;
    for (let attempt = 0; attempt < 900; attempt++) {
      report = (await (await web.get(`/reports/${id}/report.json`)).json()) as Report;
      if (report.status === "completed" || report.status === "failed") break;
      await Bun.sleep(100);
    }
    return report;
  };
  beforeAll(async () => {
    pages = startLabPages();
    service = await startTestService({ env: { CHROMIUM_PATH: "/usr/bin/chromium", LAB_TIMEOUT_MS: "90000" } });
    web = await WebSession.signup(service.url);
  }, 60_000);
  afterAll(async () => {
    await service?.stop();
    pages?.stop();
  });

  test("the checkbox is there, unticked", async () => {
    const html = await (await web.get("/dashboard")).text();
    expect(html).toMatch(/<input type="checkbox" name="lab" value="true"\s*\/?>/);
    expect(html).not.toMatch(/name="lab" value="true" checked/);
  });

  test("ticked: a lab report, shown with its Core Web Vitals, thumbnail, long task and shift", async () => {
    const response = await web.post("/analyze", { url: `${pages.origin}/shift/`, lab: "true" });
    expect(response.status).toBe(303);
    const id = reportIdOf(response);
    const report = await finished(id);
    expect(report?.status).toBe("completed");
    expect(report?.performance?.lab?.status).toBe("complete");
    const html = await (await web.get(`/reports/${id}`)).text();
    expect(html).toContain("Lab: the page in a browser");
    expect(html).toContain("Cumulative Layout Shift");
    expect(html).toMatch(/needs improvement|poor/);
    expect(html).toMatch(/<img src="data:image\/jpeg;base64,[A-Za-z0-9+/=]+" alt="The page's first screen/);
    expect(html).toContain("Long tasks (lab)");
    expect(html).toContain("Layout shifts counted in CLS (lab)");
    expect(html).toContain("Bytes by component (lab)");
    expect(html).toContain("<meter");
  }, 180_000);

  test("the site page plots LCP, CLS and TBT over its lab reports, beside the score, with their numbers", async () => {
    // A second lab report of the same site: the history has two lab points.
    const response = await web.post("/analyze", { url: `${pages.origin}/shift/`, lab: "true" });
    expect(response.status).toBe(303);
    await finished(reportIdOf(response));
    const portfolio = await (await web.get("/portfolio")).text();
    const siteId = /href="\/sites\/(sit_[0-9a-z]+)"/.exec(portfolio)?.[1];
    expect(siteId).toBeDefined();
    const html = await (await web.get(`/sites/${siteId}`)).text();
    expect(html).toContain("Core Web Vitals over time (lab)");
    expect(html).toContain("From the 2 lab reports among the last 2");
    for (const id of ["lab-chart-lcp_ms", "lab-chart-cls", "lab-chart-tbt_ms"])
      expect(html).toContain(`id="${id}-title"`);
    // The known shift (~0.2) is above the good threshold: its points are not "good".
    expect(html).toMatch(/Cumulative Layout Shift: 0\.\d{3} to 0\.\d{3} over the last 2 lab reports/);
    expect(html).toMatch(/class="chart-dot lab-(needs_improvement|poor)"/);
    expect(html).toContain("The lab metrics as a table");
  }, 240_000);
  test("the lab's device and throttling are chosen on the form; a value the form does not offer is refused", async () => {
    const html = await (await web.get("/dashboard")).text();
    expect(html).toMatch(/<select id="lab_device" name="lab_device">/);
    expect(html).toMatch(/<select id="lab_throttling" name="lab_throttling">/);
    const response = await web.post("/analyze", {
      url: `${pages.origin}/fast/`,
      lab: "true",
      lab_device: "desktop",
      lab_throttling: "none",
    });
    expect(response.status).toBe(303);
    const id = reportIdOf(response);
    const report = await finished(id);
    expect(report?.performance?.lab?.device).toBe("desktop");
    expect(report?.performance?.lab?.throttling).toBe("none");
    // A value the form does not offer is refused in words, before anything is charged.
    const refused = await web.post("/analyze", { url: `${pages.origin}/fast/`, lab: "true", lab_device: "tablet" });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toMatch(/The lab(&#39;|&#x27;|')s device must be one of mobile, desktop\./);
  }, 180_000);
});
