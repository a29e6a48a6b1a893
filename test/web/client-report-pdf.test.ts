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

describe.skipIf(!HAS_CHROMIUM)("PDF rendering is fair per account (issue 30)", () => {
  test("another account's PDF goes next, not behind one account's whole batch; one account may only queue a few", async () => {
    const renderer = new PdfRenderer(CHROMIUM, silentLogger, {
      concurrency: 1,
      queueLimit: 20,
      accountQueueLimit: 4,
      timeoutMs: 60_000,
      idleMs: 60_000,
    });
    const finished: string[] = [];
    const render = (account: string, n: number) =>
      renderer
        .render(`<!doctype html><html><body><h1>${account} ${n}</h1></body></html>`, account)
        .then(() => finished.push(`${account}${n}`));
    try {
      // A: one rendering and 4 waiting (its line is full: the 6th is refused at once).
      const batch = [0, 1, 2, 3, 4].map((n) => render("a", n));
      const refused = await renderer.render("<p>too many</p>", "a").catch((error: { code?: string }) => error.code);
      expect(refused).toBe("unavailable");
      // B asks after all of A's: the accounts take turns, so B waits for the render in progress
      // and A's next one at most — not for A's whole batch (before: 6th, after every one of A's).
      const other = render("b", 0);
      await Promise.all([...batch, other]);
      expect(finished.indexOf("b0")).toBeLessThanOrEqual(2);
      expect(finished.filter((item) => item.startsWith("a"))).toHaveLength(5);
    } finally {
      await renderer.close();
    }
  });
});
