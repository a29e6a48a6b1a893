/** GET /metrics: closed (404) without METRICS_TOKEN or with a wrong token; Prometheus text with it. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { startBlog, type TestSite } from "../../helpers/sites.ts";

let open: TestService;
let closed: TestService;
let blog: TestSite;
beforeAll(async () => {
  [open, closed] = await Promise.all([
    startTestService({ env: { METRICS_TOKEN: "metrics-secret-123" } }),
    startTestService(),
  ]);
  blog = startBlog();
});
afterAll(async () => {
  blog.stop();
  await Promise.all([open.stop(), closed.stop()]);
});

test("closed by default and with a wrong token", async () => {
  expect((await fetch(`${closed.url}/metrics`)).status).toBe(404);
  expect((await fetch(`${closed.url}/metrics`, { headers: { authorization: "Bearer x" } })).status).toBe(404);
  expect((await fetch(`${open.url}/metrics`)).status).toBe(404);
  expect((await fetch(`${open.url}/metrics`, { headers: { authorization: "Bearer metrics-secret-12" } })).status).toBe(
    404,
  );
});

test("with the token: queue figures, outcomes, durations and rejections in Prometheus format", async () => {
  const { token } = await open.token(undefined, "free");
  expect((await open.call("POST", "/api/generate-report", { token, body: { url: blog.url } })).status).toBe(201);
  for (let i = 0; i < 12; i++) await open.call("GET", "/api/usage", { token }); // Free: 10 a minute
  const response = await fetch(`${open.url}/metrics`, { headers: { authorization: "Bearer metrics-secret-123" } });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toStartWith("text/plain");
  const text = await response.text();
  expect(text).toContain('wpreport_queue_reports{state="queued"} 0');
  expect(text).toContain('wpreport_queue_reports{state="running"} 0');
  expect(text).toContain('wpreport_analyses_total{outcome="completed"} 1');
  expect(text).toContain("wpreport_analysis_duration_seconds_count 1");
  expect(text).toMatch(/wpreport_rejections_total\{reason="rate_limited"\} [1-9]/);
});
