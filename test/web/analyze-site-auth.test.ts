/**
 * The dashboard's analyze form on a password-protected site: the optional fields (basic auth,
 * headers, cookies) open it — every request the analyzer made to it was admitted — by the same
 * rules as the API's site_auth; a refused header is a 400 page naming the field, never its value,
 * and no page shows a secret back.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Report } from "../../shared/report.ts";
import { found } from "../helpers/db-dump.ts";
import {
  newSecrets,
  type ProtectedSite,
  type Recorder,
  secretForms,
  startProtectedBlog,
  startRecorder,
} from "../helpers/protected-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { WebSession } from "../helpers/web-session.ts";

describe("analyze form: a password-protected site", () => {
  const secrets = newSecrets();
  const forms = secretForms(secrets);
  let service: TestService;
  let other: Recorder;
  let site: ProtectedSite;
  let web: WebSession;

  beforeAll(async () => {
    service = await startTestService();
    other = startRecorder();
    site = startProtectedBlog(secrets, other);
    web = await WebSession.signup(service.url);
  });
  afterAll(async () => {
    site.stop();
    other.stop();
    await service.stop();
  });

  test("the fields are there, optional and empty", async () => {
    const html = await (await web.get("/dashboard")).text();
    for (const name of ["http_user", "http_password", "http_headers", "http_cookies"]) {
      expect(html).toContain(`name="${name}"`);
    }
    expect(html).toContain('type="password"');
  });

  test("filled in, they open the site; the report and its page show no secret", async () => {
    const response = await web.post("/analyze", {
      url: site.url,
      http_user: secrets.username,
      http_password: secrets.password,
      http_headers: `X-Staging-Token: ${secrets.header}`,
      http_cookies: `staging_pass=${secrets.cookie}`,
    });
    expect(response.status).toBe(303);
    const id = /\/reports\/(rep_[0-9a-z]+)/.exec(response.headers.get("location") ?? "")?.[1];
    const report = (await (await web.get(`/reports/${id}/report.json`)).json()) as Report;
    expect(report.wordpress?.detected).toBe(true);
    expect(site.refused).toEqual([]);
    expect(found(JSON.stringify(report), forms)).toEqual([]);
    expect(found(await (await web.get(`/reports/${id}`)).text(), forms)).toEqual([]);
    expect(found(JSON.stringify(other.requests), forms)).toEqual([]);
  });

  test("a header that may not be set is a 400 page naming it, not its value; nothing is analyzed", async () => {
    const admitted = site.admitted.length;
    const response = await web.post("/analyze", {
      url: site.url,
      http_password: secrets.password,
      http_user: secrets.username,
      http_headers: `X-Forwarded-For: ${secrets.header}`,
    });
    expect(response.status).toBe(400);
    const html = await response.text();
    expect(html).toContain("Headers: X-Forwarded-For is not a header site credentials may set");
    expect(found(html, forms)).toEqual([]);
    expect(site.admitted.length).toBe(admitted);
    const passwordOnly = await web.post("/analyze", { url: site.url, http_password: secrets.password });
    expect(passwordOnly.status).toBe(400);
    expect(await passwordOnly.text()).toContain("User name is required with a password");
  });
});
