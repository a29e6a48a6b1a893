/**
 * A client of the wpreport API as a user would write one: types generated from the served
 * OpenAPI document by openapi-typescript (into generated/, by test/api/openapi.test.ts), calls
 * made with openapi-fetch. It calls every route of the document; type-checking it with
 * TypeScript 5 (this workspace's) proves the document's types are the ones users need:
 * numbers are numbers, enums are unions, errors are problems with a typed `code`.
 */
import createClient from "openapi-fetch";
import type { components, paths } from "./generated/schema";

type Schemas = components["schemas"];
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** Fails the type check unless T is `true`. */
const expectType = <T extends true>(_proof?: T) => {};

export interface Calls {
  statuses: Record<string, number>;
  reportId: string;
  score: number | null;
  grade: Schemas["Grade"] | null;
  /** The grade as GET /api/report/{report_id} gave it. */
  fetchedGrade: Schemas["Grade"] | null;
  listed: string[];
  verdict: Schemas["Verdict"]["result"];
  remaining: number;
  notFoundCode: Schemas["Problem"]["code"] | undefined;
  badQueryCode: Schemas["Problem"]["code"] | undefined;
  sarifVersion: string | undefined;
  schemaId: unknown;
  openapiVersion: unknown;
  siteGrade: Schemas["Grade"] | null;
  componentSites: number;
}

export async function callEveryRoute(baseUrl: string, token: string, siteUrl: string): Promise<Calls> {
  const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token}` } });
  const statuses: Record<string, number> = {};

  const health = await client.GET("/healthz");
  statuses.healthz = health.response.status;
  expectType<Equal<typeof health.data, { status: "ok" } | undefined>>();

  const ready = await client.GET("/readyz");
  statuses.readyz = ready.response.status;

  const created = await client.POST("/api/generate-report", {
    body: { url: siteUrl, metadata: { environment: "typed-client", git_sha: "abc1234" }, mode: "passive" },
    params: { header: { "Idempotency-Key": `typed-client-${Date.now()}` } },
  });
  statuses.generate = created.response.status;
  if (!created.data) throw new Error(`generate-report failed: ${JSON.stringify(created.error)}`);
  const report = created.data;
  expectType<Equal<typeof report.summary, Schemas["Summary"] | null>>();
  expectType<Equal<Schemas["Summary"]["score"], number>>();
  expectType<Equal<typeof report.status, "queued" | "running" | "completed" | "failed">>();
  expectType<Equal<Schemas["Check"]["severity"], "critical" | "high" | "medium" | "low" | "info">>();
  expectType<Equal<Schemas["Vulnerability"]["cvss"], number | null>>();

  const fetched = await client.GET("/api/report/{report_id}", { params: { path: { report_id: report.id } } });
  statuses.report = fetched.response.status;
  // One media type per operation: the body is a Report, not a union with SARIF, so its fields
  // read without a cast.
  expectType<Equal<typeof fetched.data, Schemas["Report"] | undefined>>();
  if (!fetched.data) throw new Error(`report failed: ${JSON.stringify(fetched.error)}`);
  const fetchedGrade: Schemas["Grade"] | undefined = fetched.data.summary?.grade;

  const sarif = await client.GET("/api/report/{report_id}/sarif", {
    params: { path: { report_id: report.id }, query: { sarif_location: ".github/workflows/deploy.yml" } },
  });
  statuses.sarif = sarif.response.status;
  expectType<Equal<NonNullable<typeof sarif.data>["version"], "2.1.0">>();
  const sarifVersion: "2.1.0" | undefined = sarif.data?.version;

  const missing = await client.GET("/api/report/{report_id}", {
    params: { path: { report_id: "rep_00000000000000000000000000" } },
  });
  statuses.missing = missing.response.status;
  expectType<Equal<NonNullable<typeof missing.error>["code"], Schemas["Problem"]["code"]>>();

  const list = await client.GET("/api/reports", { params: { query: { limit: 5, status: "completed" } } });
  statuses.list = list.response.status;
  expectType<Equal<Schemas["ReportListItem"]["score"], number | null>>();

  const badQuery = await client.GET("/api/reports", {
    // What a user would send by mistake: the document says integer 1–100.
    params: { query: { limit: 1000 } },
  });
  statuses.badQuery = badQuery.response.status;

  const compared = await client.GET("/api/report/{report_id}/diff", {
    params: { path: { report_id: report.id }, query: { base: "none", fail_on: "high", max_score_drop: 5 } },
  });
  statuses.diff = compared.response.status;
  if (!compared.data) throw new Error(`diff failed: ${JSON.stringify(compared.error)}`);
  expectType<Equal<typeof compared.data.verdict.result, "pass" | "fail">>();

  const usage = await client.GET("/api/usage");
  statuses.usage = usage.response.status;
  if (!usage.data) throw new Error("usage failed");
  expectType<Equal<typeof usage.data.remaining, number>>();

  // The portfolio: the site of the report above, what it runs, its client report.
  const sites = await client.GET("/api/sites", { params: { query: { limit: 10 } } });
  statuses.sites = sites.response.status;
  const site = sites.data?.data[0];
  if (!site) throw new Error("sites failed");
  expectType<Equal<typeof site.latest, Schemas["SiteSummary"]["latest"]>>();
  expectType<Equal<Schemas["SiteSummary"]["monitor"], Schemas["SiteMonitor"] | null>>();
  const csv = await client.GET("/api/sites.csv", { parseAs: "text" });
  statuses.sitesCsv = csv.response.status;
  expectType<Equal<typeof csv.data, string | undefined>>();
  const siteDetail = await client.GET("/api/sites/{site_id}", { params: { path: { site_id: site.id } } });
  statuses.site = siteDetail.response.status;
  const components = await client.GET("/api/components", { params: { query: { slug: "wordpress", type: "core" } } });
  statuses.components = components.response.status;
  expectType<Equal<NonNullable<typeof components.data>["data"][number]["vulnerable"], boolean>>();
  const period = siteDetail.data?.client_report_periods[0] ?? "";
  const clientReport = await client.GET("/api/sites/{site_id}/client-report", {
    params: { path: { site_id: site.id }, query: { period, format: "html" } },
    parseAs: "text",
  });
  statuses.clientReport = clientReport.response.status;

  // Webhooks: every route, typed from the document.
  const hook = await client.POST("/api/webhooks", {
    body: { url: `${siteUrl}hooks/wpreport`, events: ["report.completed", "monitor.regressed"], format: "standard" },
    params: { header: { "Idempotency-Key": `typed-client-webhook-${Date.now()}` } },
  });
  statuses.createWebhook = hook.response.status;
  if (!hook.data) throw new Error(`createWebhook failed: ${JSON.stringify(hook.error)}`);
  expectType<Equal<typeof hook.data.secret, string>>();
  expectType<Equal<typeof hook.data.status, "enabled" | "disabled">>();
  expectType<Equal<Schemas["Webhook"]["format"], "standard" | "slack">>();
  const webhook_id = hook.data.id;
  statuses.listWebhooks = (await client.GET("/api/webhooks", { params: { query: { limit: 10 } } })).response.status;
  statuses.getWebhook = (
    await client.GET("/api/webhooks/{webhook_id}", { params: { path: { webhook_id } } })
  ).response.status;
  const patched = await client.PATCH("/api/webhooks/{webhook_id}", {
    params: { path: { webhook_id } },
    body: { events: ["vulnerability.found"], description: "typed client" },
  });
  statuses.updateWebhook = patched.response.status;
  const sent = await client.POST("/api/webhooks/{webhook_id}/test", { params: { path: { webhook_id } } });
  statuses.testWebhook = sent.response.status;
  if (!sent.data) throw new Error(`testWebhook failed: ${JSON.stringify(sent.error)}`);
  expectType<Equal<typeof sent.data.status, "pending" | "succeeded" | "failed">>();
  const delivery_id = sent.data.id;
  statuses.listDeliveries = (
    await client.GET("/api/webhooks/{webhook_id}/deliveries", {
      params: { path: { webhook_id }, query: { status: "pending" } },
    })
  ).response.status;
  statuses.getDelivery = (
    await client.GET("/api/webhooks/{webhook_id}/deliveries/{delivery_id}", {
      params: { path: { webhook_id, delivery_id } },
    })
  ).response.status;
  statuses.redeliver = (
    await client.POST("/api/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver", {
      params: { path: { webhook_id, delivery_id } },
    })
  ).response.status;
  const rotated = await client.POST("/api/webhooks/{webhook_id}/rotate-secret", {
    params: { path: { webhook_id }, query: { overlap_hours: 1 } },
  });
  statuses.rotateSecret = rotated.response.status;
  expectType<Equal<NonNullable<typeof rotated.data>["previous_secret_expires_at"], string | null>>();
  statuses.deleteWebhook = (
    await client.DELETE("/api/webhooks/{webhook_id}", { params: { path: { webhook_id } } })
  ).response.status;

  // Monitors: every route, typed from the document.
  const monitor = await client.POST("/api/monitors", {
    body: { url: siteUrl, schedule: "weekly", environment: "typed-client", fail_on: "medium", assert: "seo.*: warn" },
    params: { header: { "Idempotency-Key": `typed-client-monitor-${Date.now()}` } },
  });
  statuses.createMonitor = monitor.response.status;
  if (!monitor.data) throw new Error(`createMonitor failed: ${JSON.stringify(monitor.error)}`);
  expectType<Equal<typeof monitor.data.status, "active" | "paused">>();
  expectType<Equal<typeof monitor.data.next_run_at, string | null>>();
  const monitor_id = monitor.data.id;
  statuses.listMonitors = (await client.GET("/api/monitors", { params: { query: { limit: 10 } } })).response.status;
  statuses.getMonitor = (
    await client.GET("/api/monitors/{monitor_id}", { params: { path: { monitor_id } } })
  ).response.status;
  statuses.updateMonitor = (
    await client.PATCH("/api/monitors/{monitor_id}", { params: { path: { monitor_id } }, body: { enabled: false } })
  ).response.status;
  const ran = await client.POST("/api/monitors/{monitor_id}/run", { params: { path: { monitor_id } } });
  statuses.runMonitor = ran.response.status;
  expectType<Equal<NonNullable<typeof ran.data>["status"], "queued" | "running" | "completed" | "failed">>();
  statuses.deleteMonitor = (
    await client.DELETE("/api/monitors/{monitor_id}", { params: { path: { monitor_id } } })
  ).response.status;

  const schema = await client.GET("/api/schema/report.json");
  statuses.schema = schema.response.status;
  const openapi = await client.GET("/api/openapi.json");
  statuses.openapi = openapi.response.status;

  return {
    statuses,
    reportId: report.id,
    score: report.summary?.score ?? null,
    grade: report.summary?.grade ?? null,
    fetchedGrade: fetchedGrade ?? null,
    listed: (list.data?.data ?? []).map((item) => item.id),
    verdict: compared.data.verdict.result,
    remaining: usage.data.remaining,
    notFoundCode: missing.error?.code,
    badQueryCode: badQuery.error?.code,
    sarifVersion,
    schemaId: (schema.data as Record<string, unknown> | undefined)?.$id,
    openapiVersion: (openapi.data as Record<string, unknown> | undefined)?.openapi,
    siteGrade: site.latest?.grade ?? null,
    componentSites: components.data?.data.length ?? 0,
  };
}
