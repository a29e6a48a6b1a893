/**
 * Hostile site text through the portfolio: a WordPress-looking site whose <title> and plugin
 * name carry markup (script, event handlers), bidirectional overrides and spreadsheet formulas,
 * analyzed by the real service, with the stored report then given raw control and bidi
 * characters as a report from an older analyzer could hold. Everywhere it comes out — JSON,
 * CSV, the portfolio, site and component pages (HTML and SVG), the client report's HTML and
 * its PDF — it is inert text: no script runs (even with our CSP off), no element is made of
 * it, no formula starts a cell, no bidi control survives.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { siteId } from "../../server/platform/ids.ts";
import type { ComponentSites, SiteList } from "../../shared/portfolio-api.ts";
import type { Report } from "../../shared/report.ts";
import { parseCsv } from "../helpers/csv.ts";
import { generateReport } from "../helpers/generate.ts";
import { pdfText } from "../helpers/pdf-text.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { startSite, type TestSite } from "../helpers/sites.ts";
import {
  acquireBrowser,
  HAS_CHROMIUM,
  openPage,
  releaseBrowser,
  shareSession,
  signUp,
  type TestPage,
} from "./browser.ts";

setDefaultTimeout(60_000);

const PERIOD = new Date().toISOString().slice(0, 7);
const TITLE = `=HYPERLINK("http://evil.example/x","Click") <script>window.__xss=1;alert(1)</script><img src=x onerror="window.__xss=2"> \u202Egnp.exe`;
const PLUGIN = "evil-plugin";
const PLUGIN_NAME = `@SUM(1+1)*cmd|' /C calc'!A0 <img src=x onerror="window.__xss=3"> \u2066bidi\u2069`;
/** A caller's environment is text we show too. */
const ENVIRONMENT = "+prod=1";
/** What no output may carry: C0/C1 controls (but tab and line breaks of our own layout), bidi controls. */
const CONTROLS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069]/;

interface HostileSite extends TestSite {
  withPlugin: boolean;
}

function startHostileSite(): HostileSite {
  let origin = "";
  const site = startSite({
    "/": () =>
      new Response(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${TITLE}</title>
<meta name="generator" content="WordPress 6.4.2">
<link rel="https://api.w.org/" href="${origin}/wp-json/">
<link rel="stylesheet" href="${origin}/wp-includes/css/dist/block-library/style.min.css?ver=6.4.2">
${hostile.withPlugin ? `<script src="${origin}/wp-content/plugins/${PLUGIN}/js/app.js?ver=2.0"></script>` : ""}
</head><body class="home blog"><h1>Hostile</h1><p>${"Text. ".repeat(100)}</p></body></html>`,
        { headers: { "content-type": "text/html; charset=UTF-8" } },
      ),
    [`/wp-content/plugins/${PLUGIN}/readme.txt`]: () =>
      new Response(`=== ${PLUGIN_NAME} ===\nStable tag: 2.0\n`, { headers: { "content-type": "text/plain" } }),
  });
  origin = site.url.replace(/\/$/, "");
  const hostile: HostileSite = Object.assign(site, { withPlugin: false });
  return hostile;
}

describe.skipIf(!HAS_CHROMIUM)("hostile site text in the portfolio", () => {
  let service: TestService;
  let site: HostileSite;
  let member: TestPage;
  let token = "";
  let id = "";
  let key = "";

  beforeAll(async () => {
    [service] = await Promise.all([startTestService(), acquireBrowser()]);
    site = startHostileSite();
    member = await openPage(service.url, "desktop");
    const email = await signUp(member.page);
    let accountId: string;
    ({ token, accountId } = await service.token(email, "business"));
    const reports: Report[] = [];
    for (const withPlugin of [false, true]) {
      site.withPlugin = withPlugin;
      reports.push(await generateReport(service, token, { url: site.url, metadata: { environment: ENVIRONMENT } }));
    }
    const last = reports[1] as Report;
    expect(last.plugins.map((plugin) => plugin.slug)).toContain(PLUGIN);
    // A report stored by an older analyzer could hold raw controls and bidi overrides: give the
    // stored one some, so that the portfolio's own cleaning is what is tested.
    await service.db.sql`
      update reports set body = jsonb_set(
        jsonb_set(body, '{seo,title}', to_jsonb(${`\u202E\u0007${TITLE}\u0085`}::text)),
        '{plugins}',
        (select jsonb_agg(case when p ->> 'slug' = ${PLUGIN}
                  then jsonb_set(p, '{name}', to_jsonb(${`\u202E${PLUGIN_NAME}\u001B[31m`}::text)) else p end)
           from jsonb_array_elements(body -> 'plugins') p))
      where id = ${last.id}`;
    key = new URL(site.url).host;
    id = siteId(accountId, key, ENVIRONMENT);
  });
  afterAll(async () => {
    await member?.close();
    releaseBrowser();
    site?.stop();
    await service?.stop();
  });

  test("JSON: the title and the plugin's name come out without controls or bidi overrides", async () => {
    const sites = await service.call<SiteList>("GET", "/api/sites", { token });
    const title = sites.body.data[0]?.title ?? "";
    expect(title).toContain('=HYPERLINK("http://evil.example/x","Click") <script>');
    expect(CONTROLS.test(title)).toBe(false);
    const components = await service.call<ComponentSites>("GET", `/api/components?slug=${PLUGIN}`, { token });
    const name = components.body.data[0]?.name ?? "";
    expect(name).toContain("@SUM(1+1)");
    expect(CONTROLS.test(name)).toBe(false);
  });

  test("CSV: formulas start no cell, nothing breaks the framing, no control survives", async () => {
    const response = await fetch(`${service.url}/api/sites.csv`, { headers: { authorization: `Bearer ${token}` } });
    const text = await response.text();
    expect(CONTROLS.test(text.replace(/\r\n/g, ""))).toBe(false);
    const [header, row] = parseCsv(text);
    const cell = (name: string) => row?.[header?.indexOf(name) ?? -1] ?? "";
    expect(cell("title")).toStartWith(`'=HYPERLINK("http://evil.example/x","Click")`);
    expect(cell("environment")).toBe(`'${ENVIRONMENT}`);
    for (const value of row ?? []) expect(/^[=+\-@\t\r]/.test(value.trimStart())).toBe(false);
  });

  test("HTML and SVG: shown as text, nothing runs even without our CSP, no bidi control on the page", async () => {
    const visitor = await openPage(service.url, "desktop", { bypassCSP: true });
    try {
      await shareSession(member, visitor);
      const { page, log } = visitor;
      for (const path of [
        "/portfolio",
        `/portfolio?component=${PLUGIN}`,
        `/sites/${id}`,
        `/sites/${id}/client-report?period=${PERIOD}`,
      ]) {
        await page.goto(path);
        const body = await page.evaluate(() => document.body.textContent ?? "");
        expect({ path, controls: CONTROLS.test(body) }).toEqual({ path, controls: false });
        if (path !== `/portfolio?component=${PLUGIN}`)
          expect(body).toContain("<script>window.__xss=1;alert(1)</script>");
        if (path.includes("component") || path.includes("client-report")) expect(body).toContain("@SUM(1+1)*cmd");
        // No element was made of site text: no script beyond ours, no <img> with onerror, no handler anywhere.
        const made = await page.evaluate(() => ({
          scripts: [...document.scripts].map((script) => script.src).filter((src) => !src.endsWith("/assets/app.js")),
          handlers: [...document.querySelectorAll("*")].filter((element) =>
            [...element.attributes].some((attribute) => attribute.name.startsWith("on")),
          ).length,
          images: [...document.images].map((image) => image.getAttribute("src") ?? "").filter((src) => src === "x"),
          svgForeign: document.querySelectorAll("svg script, svg foreignObject, svg a").length,
          svgText: [...document.querySelectorAll("svg")].map((svg) => svg.textContent ?? "").join(" "),
        }));
        expect({ path, ...made, svgText: made.svgText.includes("<") || made.svgText.includes("HYPERLINK") }).toEqual({
          path,
          scripts: [],
          handlers: 0,
          images: [],
          svgForeign: 0,
          svgText: false,
        });
        expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
      }
      expect(log.dialogs).toEqual([]);
      // The bytes the server sent: the payload escaped, once.
      const html = await (await page.request.get("/portfolio")).text();
      expect(html).toContain(
        "&lt;script>window.__xss=1;alert(1)&lt;/script>&lt;img src=x onerror=&quot;window.__xss=2&quot;>",
      );
      expect(html).not.toContain("<script>window.__xss");
      expect(html).not.toContain("<img src=x");
    } finally {
      await visitor.close();
    }
  });

  test("PDF: the same text, inert, and no bidi control", async () => {
    const response = await fetch(`${service.url}/api/sites/${id}/client-report?period=${PERIOD}&format=pdf`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(200);
    const { pages } = await pdfText(new Uint8Array(await response.arrayBuffer()));
    const text = pages.join("\n");
    expect(text).toContain("<script>window.__xss=1;alert(1)</script>");
    expect(text).toContain('=HYPERLINK("http://evil.example/x","Click")');
    // The plugin came with the second report: "What changed" names it.
    expect(text).toContain("@SUM(1+1)*cmd");
    expect(CONTROLS.test(text.replace(/\t/g, ""))).toBe(false);
  });
});
