/**
 * Idempotency-Key on generate-report (docs/api.md): a replay within 24 h returns the
 * original report and is not charged again; while it runs, a repeat waits for the same report;
 * another body → 422; a repeat before the first request stored its report → 409.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { requestFingerprint } from "../../server/access/idempotency.service.ts";
import { BACKENDS } from "../helpers/databases.ts";
import { freePort, startTestService, type TestService } from "../helpers/service.ts";
import { blogHomepage, startBlog, startSite, type TestSite } from "../helpers/sites.ts";

test("request fingerprints ignore key order", () => {
  expect(requestFingerprint({ url: "a", metadata: { x: 1, y: 2 } })).toBe(
    requestFingerprint({ metadata: { y: 2, x: 1 }, url: "a" }),
  );
  expect(requestFingerprint({ url: "a" })).not.toBe(requestFingerprint({ url: "b" }));
});

describe.each(BACKENDS)("Idempotency-Key on %s", (backend) => {
  let service: TestService;
  let blog: TestSite;
  let slow: TestSite;

  beforeAll(async () => {
    service = await startTestService({ backend });
    blog = startBlog();
    slow = startSite({
      "/": async () => {
        await Bun.sleep(1_500);
        return new Response(blogHomepage("http://x"), { headers: { "content-type": "text/html" } });
      },
    });
  });
  afterAll(async () => {
    await service.stop();
    blog.stop();
    slow.stop();
  });

  /** The report a key is bound to, once its request stored it. */
  const boundReport = async (_token: string, key: string) => {
    const [row] = await service.db.sql<{ report_id: string | null }[]>`
      select report_id from idempotency_keys where key = ${key}`;
    return row?.report_id ?? undefined;
  };

  const generate = (token: string, key: string, url: string, headers: Record<string, string> = {}) =>
    service.call("POST", "/api/generate-report", {
      token,
      body: { url },
      headers: { "idempotency-key": key, ...headers },
    });

  test("a replay returns the same report and status, marked as replayed, and is not charged", async () => {
    const { token } = await service.token();
    const first = await generate(token, "deploy-42-attempt-1", blog.url);
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await generate(token, "deploy-42-attempt-1", blog.url);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("location")).toBe(first.headers.get("location"));
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const usage = await service.call("GET", "/api/usage", { token });
    expect(usage.body.used).toBe(1);
  });

  test("the same key with another body is refused with 422 idempotency_key_reused", async () => {
    const { token } = await service.token();
    expect((await generate(token, "key-reuse", blog.url)).status).toBe(201);
    const other = await generate(token, "key-reuse", `${blog.url}?page=2`);
    expect(other.status).toBe(422);
    expect(other.body.code).toBe("idempotency_key_reused");
    expect((await service.call("GET", "/api/usage", { token })).body.used).toBe(1);
  });

  test("naming the default mode is the same request as naming none; another mode is another request", async () => {
    const { token } = await service.token();
    const call = (key: string, body: Record<string, unknown>) =>
      service.call("POST", "/api/generate-report", { token, body, headers: { "idempotency-key": key } });
    const first = await call("mode-default", { url: blog.url });
    expect(first.status).toBe(201);
    const named = await call("mode-default", { url: blog.url, mode: "passive" });
    expect(named.status).toBe(201);
    expect(named.headers.get("idempotent-replayed")).toBe("true");
    expect(named.body.id).toBe(first.body.id);
    const aggressive = await call("mode-default", { url: blog.url, mode: "aggressive" });
    expect(aggressive.status).toBe(422);
    expect(aggressive.body.code).toBe("idempotency_key_reused");
  });

  test("while the first request runs, a repeat waits for the same report; both get it, charged once", async () => {
    const { token } = await service.token();
    const first = generate(token, "in-flight", slow.url);
    // The key is bound to the report as soon as the report is stored.
    for (let i = 0; i < 100 && (await boundReport(token, "in-flight")) === undefined; i++) await Bun.sleep(20);
    const during = await generate(token, "in-flight", slow.url);
    const done = await first;
    expect(done.status).toBe(201);
    expect(during.status).toBe(201);
    expect(during.headers.get("idempotent-replayed")).toBe("true");
    expect(during.body.id).toBe(done.body.id);
    const after = await generate(token, "in-flight", slow.url);
    expect(after.status).toBe(201);
    expect(after.body.id).toBe(done.body.id);
    expect((await service.call("GET", "/api/usage", { token })).body.used).toBe(1);
  });

  test("a keyed synchronous call whose report is removed while it waits answers 503 with Retry-After, never 404 (issue 30)", async () => {
    // What another request with the same key does when the analysis fails (a database storm
    // failed it): a synchronous call leaves no failed report behind. The request still waiting
    // was interrupted; before, it answered 404 not_found.
    const { token } = await service.token();
    const waiting = generate(token, "storm-1", slow.url);
    let reportId: string | undefined;
    for (let i = 0; i < 100 && reportId === undefined; i++) {
      reportId = await boundReport(token, "storm-1");
      if (reportId === undefined) await Bun.sleep(20);
    }
    await service.db.sql`delete from reports where id = ${reportId as string}`;
    const answer = await waiting;
    expect(answer.status).toBe(503);
    expect(answer.body.code).toBe("unavailable");
    expect(answer.headers.get("retry-after")).toBe("5");
    // The retry with the key starts afresh, and completes.
    const retry = await generate(token, "storm-1", slow.url);
    expect(retry.status).toBe(201);
    expect(retry.body.id).not.toBe(reportId);
    expect((await service.call("GET", "/api/usage", { token })).body.used).toBe(1);
  });

  test("a repeat before the first request stored its report gets 409 with Retry-After", async () => {
    const { token, accountId } = await service.token();
    // The first request has claimed the key and not stored its report yet.
    const fingerprint = requestFingerprint({ url: slow.url, respond_async: false });
    expect((await service.running.services.idempotency.claim(accountId, "claimed", fingerprint)).kind).toBe("new");
    const during = await generate(token, "claimed", slow.url);
    expect(during.status).toBe(409);
    expect(during.body.code).toBe("idempotency_in_progress");
    expect(during.headers.get("retry-after")).toBe("2");
    expect((await service.call("GET", "/api/usage", { token })).body.used).toBe(0);
  });

  test("async requests replay their 202 and the report's current state", async () => {
    const { token } = await service.token();
    const accepted = await generate(token, "async-key", blog.url, { prefer: "respond-async" });
    expect(accepted.status).toBe(202);
    // A worker finishes the report in the background; each replay shows its state at that moment.
    let replay = await generate(token, "async-key", blog.url, { prefer: "respond-async" });
    for (let i = 0; i < 50 && replay.body.status !== "completed"; i++) {
      await Bun.sleep(100);
      replay = await generate(token, "async-key", blog.url, { prefer: "respond-async" });
    }
    expect(replay.status).toBe(202);
    expect(replay.body.id).toBe(accepted.body.id);
    expect(replay.body.status).toBe("completed");
    // respond-async is part of the request: without it, the same key is another request.
    expect((await generate(token, "async-key", blog.url)).status).toBe(422);
  });

  test("failures are not recorded: a retry with the same key really retries", async () => {
    const { token } = await service.token();
    const port = await freePort();
    const down = await generate(token, "retry-after-outage", `http://127.0.0.1:${port}/`);
    expect(down.status).toBe(422);
    expect(down.body.code).toBe("site_unreachable");
    const retried = await generate(token, "retry-after-outage", `http://127.0.0.1:${port}/`);
    expect(retried.status).toBe(422);
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
  });

  test("keys belong to one account, and must be printable ASCII of at most 255 characters", async () => {
    const alice = await service.token();
    const bob = await service.token();
    const a = await generate(alice.token, "shared-name", blog.url);
    const b = await generate(bob.token, "shared-name", blog.url);
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(a.body.id).not.toBe(b.body.id);

    const long = await generate(alice.token, "k".repeat(256), blog.url);
    expect(long.status).toBe(400);
    expect(long.body.code).toBe("invalid_request");
    const spaces = await generate(alice.token, "has spaces", blog.url);
    expect(spaces.status).toBe(400);
  });
});
