/**
 * The recogniser of challenge and block pages (detect/block-pages.ts) on saved answers of each
 * firewall and host: test/analyzer/block-pages/*.http, raw HTTP answers (status line, headers,
 * body) as those vendors serve them — and the sites' own refusals and error pages, which are
 * not block pages.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { blockPageOf, describeBlock, sameBlockPage } from "../../server/analyzer/detect/block-pages.ts";
import { toArtifact } from "../../server/analyzer/gather/decode.ts";
import { ERROR_BODY_BYTES } from "../../server/analyzer/gather/probes.ts";
import { BLOCK_PAGES_DIR as DIR, loadAnswer } from "./block-page-samples.ts";

/** What each sample is: kind, vendor and whether its marks leave no doubt; null for the sites' own pages. */
const EXPECTED: Record<string, { kind: "challenge" | "block"; vendor: string | null; certain: boolean } | null> = {
  "cloudflare-challenge.http": { kind: "challenge", vendor: "Cloudflare", certain: true },
  "cloudflare-block.http": { kind: "block", vendor: "Cloudflare", certain: true },
  "cloudflare-1020.http": { kind: "block", vendor: "Cloudflare", certain: true },
  "sucuri-block.http": { kind: "block", vendor: "Sucuri", certain: true },
  "sucuri-js-challenge.http": { kind: "challenge", vendor: "Sucuri", certain: true },
  "wordfence-block.http": { kind: "block", vendor: "Wordfence", certain: true },
  "imperva-block.http": { kind: "block", vendor: "Imperva Incapsula", certain: true },
  "akamai-block.http": { kind: "block", vendor: "Akamai", certain: true },
  "aws-waf-challenge.http": { kind: "challenge", vendor: "AWS WAF", certain: true },
  "aws-cloudfront-block.http": { kind: "block", vendor: "AWS WAF", certain: true },
  "modsecurity-406.http": { kind: "block", vendor: "ModSecurity", certain: true },
  "f5-asm-rejected.http": { kind: "block", vendor: "F5 BIG-IP ASM", certain: true },
  "siteground-captcha.http": { kind: "challenge", vendor: "SiteGround", certain: true },
  "imunify360-bot-protection.http": { kind: "challenge", vendor: "Imunify360", certain: true },
  "vercel-challenge.http": { kind: "challenge", vendor: "Vercel", certain: true },
  "ddos-guard-check.http": { kind: "challenge", vendor: "DDoS-Guard", certain: true },
  "generic-captcha-429.http": { kind: "challenge", vendor: null, certain: true },
  "generic-js-check-503.http": { kind: "challenge", vendor: null, certain: true },
  "generic-access-denied-403.http": { kind: "block", vendor: null, certain: false },
  "nginx-403.http": null,
  "apache-403.http": null,
  "cloudflare-origin-502.http": null,
  "wordpress-die-forbidden.http": null,
  "wordpress-maintenance-503.http": null,
  "contact-page-captcha-200.http": null,
  "wordpress-404.http": null,
  // Ordinary pages behind a firewall carry its scripts: not a challenge.
  "cloudflare-404-javascript-detections.http": null,
  "imperva-404-injected-script.http": null,
  "imperva-js-challenge.http": { kind: "challenge", vendor: "Imperva Incapsula", certain: true },
  "plugin-readme-mentions-mod-security.http": null,
};

describe("saved answers of firewalls and hosts", () => {
  test("every sample has its expectation, and every expectation its sample", () => {
    expect(readdirSync(DIR).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const [name, expected] of Object.entries(EXPECTED)) {
    test(`${name} → ${expected ? `${expected.kind} (${expected.vendor ?? "vendor unknown"})` : "the site's own answer"}`, () => {
      const page = blockPageOf(loadAnswer(name));
      if (expected === null) expect(page).toBeNull();
      else expect(page).toMatchObject(expected);
      if (page) expect(page.marker.length).toBeGreaterThan(0);
    });
  }

  test("a vendor's challenge header settles it without the page (a HEAD answer)", () => {
    const head = { ...loadAnswer("cloudflare-challenge.http"), body: "" };
    expect(blockPageOf(head)).toMatchObject({
      kind: "challenge",
      vendor: "Cloudflare",
      marker: "cf-mitigated: challenge",
    });
    // Cloudflare's headers alone (cf-ray on every answer) are presence, not a block.
    expect(blockPageOf({ ...loadAnswer("nginx-403.http"), headers: { "cf-ray": "8e3c-FRA" } })).toBeNull();
  });

  test("the same page on a 200 that is a real page, or a 404, is not a block page", () => {
    const challenge = loadAnswer("cloudflare-challenge.http");
    expect(
      blockPageOf({ status: 200, headers: {}, body: `${challenge.body}${"<p>post</p>".repeat(3000)}` }),
    ).toBeNull();
    expect(blockPageOf({ ...loadAnswer("generic-captcha-429.http"), status: 200 })).toBeNull();
    expect(blockPageOf({ ...loadAnswer("generic-access-denied-403.http"), status: 404 })).toBeNull();
  });

  test("how a page reads in a reason", () => {
    expect(describeBlock({ kind: "challenge", vendor: "Cloudflare" })).toBe("a Cloudflare firewall challenge");
    expect(describeBlock({ kind: "challenge", vendor: null })).toBe("a firewall challenge");
    expect(describeBlock({ kind: "block", vendor: "Sucuri" })).toBe("a Sucuri block page");
    expect(describeBlock({ kind: "block", vendor: null })).toBe("a firewall's block page");
    expect(describeBlock({ kind: "block", vendor: "Akamai" })).toBe("an Akamai block page");
  });

  test("the same page for two paths: ids and the path itself set aside; another page is another page", () => {
    const denied = loadAnswer("generic-access-denied-403.http");
    const other = {
      ...denied,
      body: denied.body.replace("7f3a9c2e-41d8-4b6a-9e1f-0c5d2b8a6f17", "0b1c2d3e-0000-4b6a-9e1f-99aa88bb77cc"),
    };
    expect(sameBlockPage(denied, other, "/.env", "/.wpreport-1a2b3c4d")).toBe(true);
    const page = (path: string) => ({ ...denied, body: denied.body.replace("<h1>", `<h1>${path} `) });
    expect(sameBlockPage(page("/.env"), page("/.wpreport-1a2b3c4d"), "/.env", "/.wpreport-1a2b3c4d")).toBe(true);
    expect(sameBlockPage(denied, { ...denied, status: 503 }, "/.env", "/x")).toBe(false);
    expect(sameBlockPage(denied, loadAnswer("cloudflare-block.http"), "/.env", "/x")).toBe(false);
    const reworded = { ...denied, body: denied.body.replace("security policy", "rate rules for this area") };
    expect(sameBlockPage(denied, reworded, "/.env", "/x")).toBe(false);
  });

  test("an answer read once is read again when what it was read from changes (status, body, content type, firewall)", () => {
    const answer = loadAnswer("cloudflare-challenge.http");
    const first = blockPageOf(answer);
    expect(first).toMatchObject({ kind: "challenge", vendor: "Cloudflare" });
    expect(blockPageOf(answer)).toEqual(first);
    // The same object changed in place: its reading is not reused.
    const page = { status: 403, headers: {} as Record<string, string>, body: "<html><h1>Access denied</h1></html>" };
    expect(blockPageOf(page)).toMatchObject({ kind: "block", vendor: null, certain: false });
    page.status = 404;
    expect(blockPageOf(page)).toBeNull();
    page.status = 403;
    page.body = "<html><h1>Forbidden</h1></html>";
    expect(blockPageOf(page)).toBeNull();
    page.body = "<html><h1>Access denied</h1></html>";
    page.headers["x-sucuri-id"] = "11005";
    expect(blockPageOf(page)).toMatchObject({ kind: "block", vendor: "Sucuri", certain: false });
    // A small 200 counts only as HTML: the content type is part of what was read.
    const check = { status: 200, headers: { "content-type": "text/plain" }, body: "sucuri_cloudproxy_js='';" };
    expect(blockPageOf(check)).toBeNull();
    check.headers["content-type"] = "text/html";
    expect(blockPageOf(check)).toMatchObject({ kind: "challenge", vendor: "Sucuri", certain: true });
  });

  test("a firewall's marks past the kept part of an error page are kept with the answer (gather/decode.ts)", () => {
    const wordfence = loadAnswer("wordfence-block.http");
    expect(wordfence.body.indexOf("Generated by Wordfence")).toBeGreaterThan(ERROR_BODY_BYTES);
    // Its title also says it; without the title only the signature at the bottom does.
    const body = wordfence.body.replace(/<title>[^<]*<\/title>/, "<title>503</title>").replace(/<h1>[^<]*<\/h1>/, "");
    const artifact = toArtifact({
      url: "https://www.example-shop.com/wp-content/debug.log",
      status: 503,
      headers: new Headers(wordfence.headers),
      setCookies: [],
      body: Buffer.from(body),
      truncated: false,
      redirects: [],
      ttfbMs: 1,
      sentTtfbMs: 1,
      totalMs: 1,
      encoding: null,
      httpVersion: "1.1",
    });
    expect(artifact.body.length).toBe(ERROR_BODY_BYTES);
    expect(artifact.block).toMatchObject({ kind: "block", vendor: "Wordfence", certain: true });
    expect(blockPageOf(artifact)).toMatchObject({ vendor: "Wordfence" });
  });
});
