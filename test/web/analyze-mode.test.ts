/**
 * The dashboard's analyze form: the aggressive option is off by default, and ticking it makes
 * an aggressive report (the same field the API takes), against a local WordPress-like blog.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Report } from "../../shared/report.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { startBlog, type TestSite } from "../helpers/sites.ts";
import { WebSession } from "../helpers/web-session.ts";

describe("analyze form: mode", () => {
  let service: TestService;
  let blog: TestSite;
  let web: WebSession;
  beforeAll(async () => {
    service = await startTestService();
    blog = startBlog();
    web = await WebSession.signup(service.url);
  });
  afterAll(async () => {
    blog.stop();
    await service.stop();
  });

  const analyze = async (fields: Record<string, string>): Promise<Report> => {
    const response = await web.post("/analyze", fields);
    expect(response.status).toBe(303);
    const id = /\/reports\/(rep_[0-9a-z]+)/.exec(response.headers.get("location") ?? "")?.[1];
    const json = await web.get(`/reports/${id}/report.json`);
    expect(json.status).toBe(200);
    return (await json.json()) as Report;
  };

  test("the form's old address, /analyse, sends the post on to /analyze with its method and body (308)", async () => {
    const old = await web.post("/analyse", { url: blog.url });
    expect(old.status).toBe(308);
    expect(old.headers.get("location")).toBe("/analyze");
  });

  test("the checkbox is there, unticked", async () => {
    const html = await (await web.get("/dashboard")).text();
    expect(html).toMatch(/<input type="checkbox" name="mode" value="aggressive"\s*\/?>/);
    expect(html).not.toMatch(/name="mode" value="aggressive" checked/);
  });

  test("unticked → passive; ticked → aggressive, with the enumeration's account", async () => {
    const passive = await analyze({ url: blog.url });
    expect(passive.mode).toBe("passive");
    expect(passive.enumeration).toBeNull();
    const aggressive = await analyze({ url: blog.url, mode: "aggressive" });
    expect(aggressive.mode).toBe("aggressive");
    expect(aggressive.enumeration?.plugins.method).toBeDefined();
    // Anything else in the field is the default, not an error.
    expect((await analyze({ url: blog.url, mode: "loud" })).mode).toBe("passive");
  });
});
