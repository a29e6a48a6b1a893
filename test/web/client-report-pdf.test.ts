/**
 * The client report printed to PDF by Debian's Chromium (the service's own renderer), read back
 * with pdf.js (pdf-parse, in a child process: see test/helpers/pdf-text.ts): A4 pages, the agency's name and logo, the grade, what was fixed, and
 * the print stylesheet's page break — the open issues start a page of their own. And the
 * renderer's isolation: a document that tries to load and run things gets neither.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { siteId } from "../../server/platform/ids.ts";
import { silentLogger } from "../../server/platform/logger.ts";
import { PdfRenderer } from "../../server/portfolio/pdf-renderer.ts";
import type { Report } from "../../shared/report.ts";
import { generateReport } from "../helpers/generate.ts";
import { pdfText } from "../helpers/pdf-text.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { type EnvExposingBlog, startEnvExposingBlog, startSite, type TestSite } from "../helpers/sites.ts";
import { CHROMIUM, HAS_CHROMIUM } from "./browser.ts";

setDefaultTimeout(60_000);

const PERIOD = new Date().toISOString().slice(0, 7);
/** A 1×1 PNG. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

describe.skipIf(!HAS_CHROMIUM)("the client report printed to PDF", () => {
  let service: TestService;
  let blog: EnvExposingBlog;
  let token = "";
  let accountId = "";
  let fixed: Report;

  beforeAll(async () => {
    service = await startTestService({ env: { CHROMIUM_PATH: CHROMIUM } });
    blog = startEnvExposingBlog();
    ({ token, accountId } = await service.token(undefined, "business"));
    for (const exposed of [true, false]) {
      blog.envExposed = exposed;
      fixed = await generateReport(service, token, { url: blog.url, metadata: { environment: "production" } });
      expect(fixed.status).toBe("completed");
    }
    await service.running.services.branding.save(accountId, {
      name: "Northwind Digital",
      color: "#0a7d5a",
      logo: new Uint8Array(PNG),
    });
  });
  afterAll(async () => {
    blog?.stop();
    await service?.stop();
  });

  test("A4 pages with the agency's name and the grade; the open issues start a new page", async () => {
    const id = siteId(accountId, new URL(blog.url).host, "production");
    const response = await fetch(`${service.url}/api/sites/${id}/client-report?period=${PERIOD}&format=pdf`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/pdf");
    const bytes = new Uint8Array(await response.arrayBuffer());
    const { pages, info } = await pdfText(bytes);
    expect(info.Title).toBe(
      `Website report — ${new URL(blog.url).host} — ${new Date(`${PERIOD}-01T00:00:00Z`).toLocaleString("en", { month: "long", year: "numeric", timeZone: "UTC" })}`,
    );
    // A4 portrait: 595 × 842 points.
    expect(new TextDecoder("latin1").decode(bytes)).toMatch(/\/MediaBox \[0 0 59[45]\.\d+ 84[12]\.\d+\]/);

    expect(pages.length).toBeGreaterThanOrEqual(2);
    const first = pages[0] ?? "";
    expect(first).toContain("Northwind Digital");
    expect(first).toContain("Website report");
    const grade = fixed.summary?.grade ?? "?";
    // The grade letter, then its caption (upper-cased by the stylesheet).
    expect(first).toMatch(new RegExp(`\\n${grade}\\s*GRADE\\n`));
    expect(first).toContain(`${fixed.summary?.score} / 100`);
    // Page numbers in the footer of every page.
    pages.forEach((page, index) => {
      expect(page).toContain(`${index + 1} / ${pages.length}`);
    });
    // The page break: "Open issues" is the first line of a page after the first, and on no earlier page.
    const open = pages.findIndex((page) => page.includes("Open issues and how to fix them"));
    expect(open).toBeGreaterThan(0);
    expect((pages[open] ?? "").trimStart()).toStartWith("Open issues and how to fix them");
    expect(pages.slice(open).join("\n")).toContain("Fix:");
    const before = pages.slice(0, open).join("\n");
    expect(before).toContain("What was fixed");
    expect(before).toContain("No .env file is downloadable");
  });

  test("the renderer loads nothing and runs no script, whatever the document asks", async () => {
    const hits: string[] = [];
    const target: TestSite = startSite({}, (request) => {
      hits.push(new URL(request.url).pathname);
      return new Response("x");
    });
    const renderer = new PdfRenderer(CHROMIUM, silentLogger);
    try {
      const origin = target.url.replace(/\/$/, "");
      const html = `<!doctype html><html><head>
        <link rel="stylesheet" href="${origin}/style.css">
        <meta http-equiv="refresh" content="0;url=${origin}/refresh">
        </head><body><h1>Hostile document</h1>
        <img src="${origin}/pixel.png" alt="pixel">
        <iframe src="${origin}/frame"></iframe>
        <object data="${origin}/object"></object>
        <script>document.body.append("SCRIPT RAN"); fetch("${origin}/fetch");</script>
        <img src="data:image/png;base64,${PNG.toString("base64")}" alt="inline">
        </body></html>`;
      const pdf = await renderer.render(html);
      const { pages } = await pdfText(pdf);
      const text = pages.join("\n");
      expect(text).toContain("Hostile document");
      expect(text).not.toContain("SCRIPT RAN");
      expect(hits).toEqual([]);
      expect(renderer.blockedRequests).toBeGreaterThanOrEqual(3);
    } finally {
      await renderer.close();
      target.stop();
    }
  });
});
