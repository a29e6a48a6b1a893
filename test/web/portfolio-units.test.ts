/**
 * The portfolio's small parts on their own: site ids, the CSV writer (RFC 4180 framing and
 * the formula prefix), logo recognition and the branding fields, periods, CHROMIUM_PATH.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { isId, siteId } from "../../server/platform/ids.ts";
import { DEFAULT_CHROMIUM } from "../../server/platform/settings.ts";
import {
  BrandingError,
  brandColor,
  brandName,
  logoType,
  MAX_LOGO_BYTES,
} from "../../server/portfolio/branding.service.ts";
import { parsePeriod } from "../../server/portfolio/client-report.ts";
import { csvRows, csvText } from "../../server/portfolio/csv.ts";
import { ConfigError, loadConfig } from "../../server/start/config.ts";
import { SITE_ID_PATTERN } from "../../shared/portfolio-api.ts";
import { parseCsv } from "../helpers/csv.ts";

describe("site ids", () => {
  test("sit_ + 26 base32 characters from SHA-256 of account, site key and environment", async () => {
    const id = siteId("acc_01m807a3aghb72nx4r1yzpj8en", "example.com", "production");
    expect(id).toMatch(new RegExp(SITE_ID_PATTERN));
    expect(isId("sit", id)).toBe(true);
    // The first 130 bits of the digest, 5 bits a character.
    const digest = new Uint8Array(
      await crypto.subtle.digest(
        "SHA-256",
        new TextEncoder().encode("acc_01m807a3aghb72nx4r1yzpj8en\nexample.com\nproduction"),
      ),
    );
    const bits = [...digest].map((byte) => byte.toString(2).padStart(8, "0")).join("");
    const alphabet = "0123456789abcdefghjkmnpqrstvwxyz";
    const expected = Array.from({ length: 26 }, (_, i) => alphabet[Number.parseInt(bits.slice(i * 5, i * 5 + 5), 2)]);
    expect(id).toBe(`sit_${expected.join("")}`);
  });

  test("deterministic; a different account, site or environment is a different id; no environment is ''", () => {
    const a = siteId("acc_a", "example.com", "production");
    expect(siteId("acc_a", "example.com", "production")).toBe(a);
    expect(siteId("acc_b", "example.com", "production")).not.toBe(a);
    expect(siteId("acc_a", "example.org", "production")).not.toBe(a);
    expect(siteId("acc_a", "example.com", "staging")).not.toBe(a);
    expect(siteId("acc_a", "example.com", null)).toBe(siteId("acc_a", "example.com", ""));
    // The separator keeps the parts apart: ("a\nb", "") is not ("a", "b").
    expect(siteId("acc_a", "x\ny", "")).not.toBe(siteId("acc_a", "x", "y"));
  });
});

describe("CSV", () => {
  test("text that a spreadsheet would run as a formula gets an apostrophe; numbers we write do not", () => {
    expect(csvText('=HYPERLINK("http://evil/")')).toBe('\'=HYPERLINK("http://evil/")');
    expect(csvText("+1+1")).toBe("'+1+1");
    expect(csvText("-2+3")).toBe("'-2+3");
    expect(csvText("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(csvText("\t=1")).toBe("' =1");
    expect(csvText("\r=1")).toBe("' =1");
    expect(csvText("  =1")).toBe("'  =1");
    // A bidi override or a control in front hides nothing: removed, then checked.
    expect(csvText("\u202E=1")).toBe("' =1");
    expect(csvText("\u0000@x")).toBe("' @x");
    expect(csvText("Fixture Blog – tests")).toBe("Fixture Blog – tests");
    expect(csvText(null)).toBe("");
    expect(csvRows([[-5, 0, "a"]])).toBe("-5,0,a\r\n");
  });

  test("a formula after a separator a spreadsheet may split on (, ; tab |) is guarded too, and ; is quoted (issue 30)", () => {
    expect(csvText("x;=1+2;y")).toBe("x;'=1+2;y");
    expect(csvText("x;=1+2")).toBe("x;'=1+2");
    expect(csvText("x, @SUM(A1)")).toBe("x, '@SUM(A1)");
    expect(csvText("x\t+1")).toBe("x '+1");
    expect(csvText("x| -2")).toBe("x| '-2");
    expect(csvText("=1;=2")).toBe("'=1;'=2");
    expect(csvText("Sale; 10-20 % off")).toBe("Sale; 10-20 % off");
    expect(csvRows([["x;'=1+2;y", "a"]])).toBe(`"x;'=1+2;y",a\r\n`);
    // Whatever a reader splits the row on, no cell starts a formula.
    for (const value of ["x;=1+2;y", "x,=1", "x\t=1", "a ;  @b", "x|=1"]) {
      const row = csvRows([[csvText(value), "z"]]).replace(/"/g, "");
      for (const cell of row.split(/[,;\t|]/)) expect(cell.trimStart()).not.toMatch(/^[=+\-@]/);
    }
  });

  test("any text survives the round trip through an RFC 4180 reader, one line, never a formula", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.string({ unit: "binary" }), { minLength: 1, maxLength: 5 }), { minLength: 1 }),
        (table) => {
          const width = Math.max(...table.map((row) => row.length));
          const rows = table.map((row) => Array.from({ length: width }, (_, i) => csvText(row[i] ?? "")));
          const parsed = parseCsv(csvRows(rows));
          expect(parsed).toEqual(rows);
          for (const row of parsed)
            for (const cell of row) {
              expect(/[\r\n\u202A-\u202E\u2066-\u2069]/.test(cell)).toBe(false);
              expect(/^[=+\-@\t\r]/.test(cell.trimStart())).toBe(false);
            }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("branding", () => {
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
  const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16]);
  const svg = (text: string) => new TextEncoder().encode(text);

  test("a logo is PNG, JPEG or SVG by its bytes, at most 100 KB", () => {
    expect(logoType(png)).toBe("image/png");
    expect(logoType(jpeg)).toBe("image/jpeg");
    expect(logoType(svg('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBe("image/svg+xml");
    expect(
      logoType(svg('\uFEFF<?xml version="1.0"?>\n<!-- logo -->\n<!DOCTYPE svg>\n<svg:svg xmlns:svg="x"></svg:svg>')),
    ).toBe("image/svg+xml");
    for (const bad of [
      new Uint8Array(0),
      svg("<html><svg></svg></html>"),
      svg("GIF89a"),
      svg("<script>alert(1)</script><svg/>"),
      new Uint8Array([0xff, 0xfe, 0x3c, 0x00]),
    ]) {
      expect(() => logoType(bad)).toThrow(BrandingError);
    }
    const big = new Uint8Array(MAX_LOGO_BYTES + 1);
    big.set(png);
    expect(() => logoType(big)).toThrow("it may be at most 100 KB");
    const limit = new Uint8Array(MAX_LOGO_BYTES);
    limit.set(png);
    expect(logoType(limit)).toBe("image/png");
  });

  test("the name is one clean line of at most 100 characters; the colour #rrggbb", () => {
    expect(brandName("  Acme\u202E  Web\nAgency ")).toBe("Acme Web Agency");
    expect(brandName("   ")).toBeNull();
    expect(() => brandName("x".repeat(101))).toThrow(BrandingError);
    expect(brandColor("#AA3300")).toBe("#aa3300");
    expect(brandColor("")).toBeNull();
    for (const bad of ["red", "#abc", "#aa3300;}body{display:none", "url(x)"])
      expect(() => brandColor(bad)).toThrow(BrandingError);
  });
});

describe("periods", () => {
  test("a calendar month, UTC", () => {
    const period = parsePeriod("2026-11");
    expect(period.start.toISOString()).toBe("2026-11-01T00:00:00.000Z");
    expect(period.end.toISOString()).toBe("2026-12-01T00:00:00.000Z");
    expect(period.label).toBe("November 2026");
    expect(parsePeriod("2026-12").end.toISOString()).toBe("2027-01-01T00:00:00.000Z");
    for (const bad of ["2026-13", "2026-00", "2026-1", "26-11", "2026-11-01", "", "2026-11\n"])
      expect(() => parsePeriod(bad)).toThrow("YYYY-MM");
  });
});

describe("CHROMIUM_PATH", () => {
  test("default: Debian's chromium when it is there; off; a path that must exist", () => {
    const config = loadConfig({});
    expect(config.platform.chromiumPath).toBe(
      (Bun.file(DEFAULT_CHROMIUM).size ?? 0) > 0 ? DEFAULT_CHROMIUM : undefined,
    );
    expect(loadConfig({ CHROMIUM_PATH: "off" }).platform.chromiumPath).toBeUndefined();
    expect(loadConfig({ CHROMIUM_PATH: process.execPath }).platform.chromiumPath).toBe(process.execPath);
    expect(() => loadConfig({ CHROMIUM_PATH: "/nonexistent/chromium" })).toThrow(ConfigError);
    expect(() => loadConfig({ CHROMIUM_PATH: "/tmp" })).toThrow("CHROMIUM_PATH must name the Chromium executable");
  });
});
