/**
 * The API client honours Retry-After in both forms RFC 9110 §10.2.3 allows — delay-seconds and
 * an HTTP-date — against a real HTTP server on loopback that answers 503 and 429 the way a
 * proxy or the service does. The client's sleep is recorded instead of slept.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Server } from "bun";
import { ApiError, retryAfterMs, WpreportClient } from "../../shared/client.ts";

describe("retryAfterMs", () => {
  const now = Date.parse("2026-11-24T10:00:00.000Z");

  test("delay-seconds", () => {
    expect(retryAfterMs("120", now)).toBe(120_000);
    expect(retryAfterMs(" 0 ", now)).toBe(0);
    expect(retryAfterMs(["3", "9"], now)).toBe(3_000);
  });

  test("an HTTP-date in each of its three forms, measured from now; a past date is 0", () => {
    expect(retryAfterMs("Tue, 24 Nov 2026 10:00:30 GMT", now)).toBe(30_000); // IMF-fixdate
    expect(retryAfterMs("Tuesday, 24-Nov-26 10:01:00 GMT", now)).toBe(60_000); // obsolete RFC 850
    expect(retryAfterMs("Tue Nov 24 10:00:05 2026", now)).toBe(5_000); // obsolete asctime (GMT by definition)
    expect(retryAfterMs("Tue, 24 Nov 2026 09:59:00 GMT", now)).toBe(0);
  });

  test("absent or unreadable: undefined, so the client falls back to its backoff", () => {
    for (const value of [undefined, "", "soon", "-5", "1.5", "NaN"]) expect(retryAfterMs(value, now)).toBeUndefined();
  });
});

describe("the client against a server that asks it to wait", () => {
  let server: Server<undefined>;
  /** What the server answers next, in order; then 200. */
  let answers: { status: number; retryAfter: () => string }[] = [];
  let requests = 0;

  beforeAll(() => {
    server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch() {
        requests++;
        const next = answers.shift();
        if (next)
          return Response.json(
            { code: next.status === 429 ? "rate_limited" : "unavailable", detail: "Wait." },
            { status: next.status, headers: { "retry-after": next.retryAfter() } },
          );
        return Response.json({ plan: { id: "business" } });
      },
    });
  });
  afterAll(() => server.stop(true));

  const client = (waits: number[], deadline?: number) =>
    new WpreportClient({
      apiUrl: `http://127.0.0.1:${server.port}`,
      token: "wpr_test",
      deadline,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });

  test("a 503 with an HTTP-date waits until that date, a 429 with seconds waits that long", async () => {
    requests = 0;
    // Second precision: a date 30 s ahead is 29–30 s away by the time the client reads it.
    answers = [
      { status: 503, retryAfter: () => new Date(Date.now() + 30_000).toUTCString() },
      { status: 429, retryAfter: () => "7" },
    ];
    const waits: number[] = [];
    const api = client(waits);
    expect((await api.usage()).plan.id).toBe("business");
    api.close();
    expect(requests).toBe(3);
    expect(waits).toHaveLength(2);
    expect(waits[0]).toBeGreaterThan(28_000);
    expect(waits[0]).toBeLessThanOrEqual(30_000);
    expect(waits[1]).toBe(7_000);
  });

  test("a date past the step's deadline is not waited for: the answer is the error", async () => {
    requests = 0;
    answers = [{ status: 503, retryAfter: () => new Date(Date.now() + 3_600_000).toUTCString() }];
    const waits: number[] = [];
    const api = client(waits, Date.now() + 60_000);
    const error = await api.usage().catch((caught: unknown) => caught);
    api.close();
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(503);
    expect(waits).toEqual([]);
    expect(requests).toBe(1);
  });

  test("an unreadable Retry-After falls back to the backoff", async () => {
    answers = [{ status: 503, retryAfter: () => "later, maybe" }];
    const waits: number[] = [];
    const api = client(waits);
    await api.usage();
    api.close();
    expect(waits).toEqual([1_000]);
  });
});

describe("the client behind a reverse proxy whose upstream is restarting", () => {
  // docker-compose.yml puts nginx before two API replicas: an API process that dies or restarts
  // mid-call reaches the client as nginx's 502 Bad Gateway or 504 Gateway Timeout (an HTML page,
  // no Retry-After), not as a dropped connection. With an Idempotency-Key a retry can never make
  // or charge a second report, so these are retried with the backoff, as a dropped connection is.
  let server: Server<undefined>;
  let answers: number[] = [];
  const seen: string[] = [];

  beforeAll(() => {
    server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(request) {
        seen.push(`${request.method} ${request.headers.get("idempotency-key") ?? "-"}`);
        const status = answers.shift();
        if (status)
          return new Response(
            `<html><body><center><h1>${status} Bad Gateway</h1></center><hr><center>nginx</center></body></html>`,
            {
              status,
              headers: { "content-type": "text/html" },
            },
          );
        return Response.json({ id: "rep_x", status: "completed", plan: { id: "business" } }, { status: 200 });
      },
    });
  });
  afterAll(() => server.stop(true));

  const client = (waits: number[]) =>
    new WpreportClient({
      apiUrl: `http://127.0.0.1:${server.port}`,
      token: "wpr_test",
      sleep: async (ms) => {
        waits.push(ms);
      },
    });

  test("502 and 504 are retried with the backoff: GETs, and a POST that carries an Idempotency-Key", async () => {
    answers = [502, 504];
    const waits: number[] = [];
    const api = client(waits);
    expect((await api.usage()).plan.id).toBe("business");
    expect(waits).toEqual([1_000, 2_000]);

    answers = [502];
    seen.length = 0;
    const made = await api.generateReport({ url: "https://example.com/" }, { idempotencyKey: "ci-1-1-abc" });
    api.close();
    expect(made.report.id).toBe("rep_x");
    expect(seen).toEqual(["POST ci-1-1-abc", "POST ci-1-1-abc"]);
  });

  test("a POST without an Idempotency-Key is not retried: a second attempt could make a second report", async () => {
    answers = [502];
    seen.length = 0;
    const waits: number[] = [];
    const api = client(waits);
    const error = await api.generateReport({ url: "https://example.com/" }).catch((caught: unknown) => caught);
    api.close();
    expect((error as ApiError).status).toBe(502);
    expect(seen).toHaveLength(1);
    expect(waits).toEqual([]);
  });
});

describe("a diff from a service older than API 1.4.0", () => {
  test("is completed with what the newer fields say when there is nothing to say", async () => {
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () =>
        Response.json({
          base_id: "rep_a",
          head_id: "rep_b",
          regressions: [],
          verdict: { result: "pass", reasons: [] },
        }),
    });
    const api = new WpreportClient({ apiUrl: `http://127.0.0.1:${server.port}`, token: "wpr_test" });
    try {
      const diff = await api.diff("rep_b", "latest");
      expect(diff.assertions).toEqual({ rules: [], results: [], unmatched: [] });
      expect(diff.verdict).toEqual({ result: "pass", reasons: [], warnings: [] });
      expect(diff.baseline).toEqual({ rule: "latest", id: "rep_a", reason: "rep_a, chosen by the service" });
    } finally {
      api.close();
      server.stop(true);
    }
  });
});
