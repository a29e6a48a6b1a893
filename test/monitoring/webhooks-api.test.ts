/**
 * The webhook routes as an API client sees them, on both backends: create (the secret once,
 * Location), list with paging and Link, read, change, delete, 404 for other accounts' ids,
 * validation problems, Idempotency-Key, the per-account limit; secrets sealed at rest; and
 * webhooks refused (501) on PostgreSQL without WEBHOOK_SECRET_KEY.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { statSync } from "node:fs";
import path from "node:path";
import type { CreatedWebhook, Delivery, Webhook, WebhookList } from "../../shared/monitoring-api.ts";
import { MAX_WEBHOOKS_PER_ACCOUNT } from "../../shared/monitoring-api.ts";
import { BACKENDS } from "../helpers/databases.ts";
import { HAS_POSTGRES } from "../helpers/env.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { type Receiver, startReceiver } from "./helpers.ts";

setDefaultTimeout(60_000);

for (const backend of BACKENDS) {
  describe(`/api/webhooks (${backend})`, () => {
    let service: TestService;
    let token: string;
    let accountId: string;
    let receiver: Receiver;

    beforeAll(async () => {
      receiver = startReceiver();
      // PGlite keeps its key in a file beside the database; PostgreSQL is given one.
      const env: Record<string, string> =
        backend === "postgres" ? { WEBHOOK_SECRET_KEY: Buffer.alloc(32, 3).toString("base64") } : {};
      service = await startTestService({ backend, env });
      ({ token, accountId } = await service.token());
      await service.db.sql`update accounts set rate_limit_per_minute = 100000 where id = ${accountId}`;
    });
    afterAll(async () => {
      receiver?.stop();
      await service?.stop();
    });

    const create = (body: unknown, headers: Record<string, string> = {}, as = token) =>
      service.call<CreatedWebhook & { code?: string; detail?: string }>("POST", "/api/webhooks", {
        token: as,
        body,
        headers,
      });

    test("create: 201 with Location and the secret once; reads never show it; it is sealed at rest", async () => {
      const response = await create({
        url: receiver.url,
        events: ["monitor.regressed", "vulnerability.found"],
        description: "Client A alerts",
      });
      expect(response.status).toBe(201);
      const hook = response.body;
      expect(hook).toEqual({
        id: expect.stringMatching(/^whk_[0-9a-z]{26}$/),
        url: receiver.url,
        events: ["monitor.regressed", "vulnerability.found"],
        format: "standard",
        description: "Client A alerts",
        status: "enabled",
        disabled_at: null,
        disabled_reason: null,
        failing_since: null,
        previous_secret_expires_at: null,
        created_at: expect.any(String),
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      });
      expect(response.headers.get("location")).toBe(`${service.url}/api/webhooks/${hook.id}`);

      const read = await service.call<Webhook>("GET", `/api/webhooks/${hook.id}`, { token });
      expect(read.status).toBe(200);
      const { secret, ...shown } = hook;
      expect(read.body).toEqual(shown);
      expect(JSON.stringify(read.body)).not.toContain(secret);

      // At rest: sealed (AES-256-GCM), neither the secret nor its base64 body in the row.
      const [row] = await service.db.sql<
        { secret_enc: string }[]
      >`select secret_enc from webhooks where id = ${hook.id}`;
      expect(row?.secret_enc).toStartWith("v1.");
      expect(row?.secret_enc).not.toContain(secret.slice("whsec_".length, 20));
      if (backend === "pglite") {
        const keyFile = path.join(service.db.dataDir as string, "webhook-secret.key");
        expect((statSync(keyFile).mode & 0o777).toString(8)).toBe("600");
      }
    });

    test("list: newest first, paged with before= and a Link to the next page", async () => {
      const other = await service.token();
      const ids: string[] = [];
      for (let index = 0; index < 3; index++) {
        const made = await create({ url: `${receiver.url}/${index}`, events: ["report.failed"] }, {}, other.token);
        ids.push(made.body.id);
      }
      const first = await service.call<WebhookList>("GET", "/api/webhooks?limit=2", { token: other.token });
      expect(first.status).toBe(200);
      expect(first.body.data.map((item) => item.id)).toEqual([ids[2] as string, ids[1] as string]);
      expect(first.body.next_cursor).toBe(ids[1] as string);
      expect(first.headers.get("link")).toBe(`<${service.url}/api/webhooks?limit=2&before=${ids[1]}>; rel="next"`);
      const second = await service.call<WebhookList>("GET", `/api/webhooks?limit=2&before=${ids[1]}`, {
        token: other.token,
      });
      expect(second.body).toMatchObject({ data: [{ id: ids[0] }], next_cursor: null });
      expect(second.headers.get("link")).toBeNull();
      // Another account sees none of them, and cannot read, change or delete them.
      const mine = await service.call<WebhookList>("GET", "/api/webhooks?limit=100", { token });
      expect(mine.body.data.map((item) => item.id)).not.toContain(ids[0]);
      for (const [method, suffix] of [
        ["GET", ""],
        ["PATCH", ""],
        ["DELETE", ""],
        ["POST", "/test"],
        ["POST", "/rotate-secret"],
        ["GET", "/deliveries"],
      ] as const) {
        const response = await service.call(method, `/api/webhooks/${ids[0]}${suffix}`, {
          token,
          ...(method === "PATCH" ? { body: { description: "mine now" } } : {}),
        });
        expect({ method, suffix, status: response.status, code: response.body.code }).toEqual({
          method,
          suffix,
          status: 404,
          code: "not_found",
        });
      }
      const badCursor = await service.call("GET", "/api/webhooks?before=whk_00000000000000000000000000", { token });
      expect(badCursor.status).toBe(400);
      const badLimit = await service.call("GET", "/api/webhooks?limit=0", { token });
      expect({ status: badLimit.status, code: badLimit.body.code }).toEqual({ status: 400, code: "invalid_request" });
    });

    test("invalid bodies are 400 naming the field; unknown events, empty lists, unknown fields", async () => {
      for (const body of [
        { url: receiver.url },
        { url: receiver.url, events: [] },
        { url: receiver.url, events: ["report.exploded"] },
        { url: receiver.url, events: ["webhook.test"] },
        { url: receiver.url, events: ["report.failed", "report.failed"] },
        { url: receiver.url, events: ["report.failed"], format: "xml" },
        { url: receiver.url, events: ["report.failed"], secret: "mine" },
        { url: 42, events: ["report.failed"] },
      ]) {
        const response = await create(body);
        expect({ body, status: response.status, code: response.body.code }).toEqual({
          body,
          status: 400,
          code: "invalid_request",
        });
      }
      const text = await service.call("POST", "/api/webhooks", {
        token,
        body: "url=x",
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });
      expect(text.status).toBe(415);
      const noToken = await service.call("POST", "/api/webhooks", {
        body: { url: receiver.url, events: ["report.failed"] },
      });
      expect(noToken.status).toBe(401);
    });

    test("PATCH changes what it is given; disable and enable; DELETE is 204 then 404", async () => {
      const hook = (await create({ url: receiver.url, events: ["report.failed"] })).body;
      const patched = await service.call<Webhook>("PATCH", `/api/webhooks/${hook.id}`, {
        token,
        body: { events: ["report.completed", "report.failed"], format: "slack", description: "  Team channel " },
      });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({
        url: receiver.url,
        events: ["report.completed", "report.failed"],
        format: "slack",
        description: "Team channel",
        status: "enabled",
      });
      const off = await service.call<Webhook>("PATCH", `/api/webhooks/${hook.id}`, { token, body: { enabled: false } });
      expect(off.body).toMatchObject({ status: "disabled", disabled_reason: "Disabled by you." });
      await service.db.sql`update webhooks set failing_since = now() - interval '1 day' where id = ${hook.id}`;
      const on = await service.call<Webhook>("PATCH", `/api/webhooks/${hook.id}`, { token, body: { enabled: true } });
      expect(on.body).toMatchObject({
        status: "enabled",
        disabled_at: null,
        disabled_reason: null,
        failing_since: null,
      });
      const empty = await service.call("PATCH", `/api/webhooks/${hook.id}`, { token, body: {} });
      expect(empty.status).toBe(400);

      const deleted = await service.call("DELETE", `/api/webhooks/${hook.id}`, { token });
      expect(deleted.status).toBe(204);
      expect((await service.call("GET", `/api/webhooks/${hook.id}`, { token })).status).toBe(404);
      expect((await service.call("DELETE", `/api/webhooks/${hook.id}`, { token })).status).toBe(404);
      expect((await service.call("GET", "/api/webhooks/not-an-id", { token })).status).toBe(404);
    });

    test("Idempotency-Key: a repeated create answers the same webhook once; another body with the key is 422", async () => {
      const body = { url: `${receiver.url}/idem`, events: ["report.failed"] };
      const key = `create-${backend}-${Date.now()}`;
      const first = await create(body, { "idempotency-key": key });
      const again = await create(body, { "idempotency-key": key });
      expect(first.status).toBe(201);
      expect(again.status).toBe(201);
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect(again.body.id).toBe(first.body.id);
      expect(again.body.secret).toBe(first.body.secret);
      const [count] = await service.db.sql<{ n: number }[]>`
        select count(*)::int as n from webhooks where account_id = ${accountId} and url = ${body.url}`;
      expect(count?.n).toBe(1);
      const reused = await create({ ...body, events: ["report.completed"] }, { "idempotency-key": key });
      expect({ status: reused.status, code: reused.body.code }).toEqual({
        status: 422,
        code: "idempotency_key_reused",
      });
      const bad = await create(body, { "idempotency-key": "spaces are not allowed" });
      expect(bad.status).toBe(400);
    });

    test("POSTs that take no body accept none; test answers 202 with the delivery and its Location", async () => {
      const hook = (await create({ url: receiver.url, events: ["report.failed"] })).body;
      const bare = await fetch(`${service.url}/api/webhooks/${hook.id}/test`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
      });
      expect(bare.status).toBe(202);
      const delivery = (await bare.json()) as Delivery;
      expect(bare.headers.get("location")).toBe(`${service.url}/api/webhooks/${hook.id}/deliveries/${delivery.id}`);
      expect(delivery).toMatchObject({
        id: expect.stringMatching(/^dlv_/),
        webhook_id: hook.id,
        event_type: "webhook.test",
        trigger: "test",
      });
      const withJson = await service.call("POST", `/api/webhooks/${hook.id}/rotate-secret`, { token, body: {} });
      expect(withJson.status).toBe(200);
      const badOverlap = await service.call("POST", `/api/webhooks/${hook.id}/rotate-secret?overlap_hours=500`, {
        token,
      });
      expect(badOverlap.status).toBe(400);
      // Strict integers (issue 30): these were read as 1, 1 and 16 and rotated the secret.
      for (const text of ["1e9", "1.5", "0x10", "+5", "%2024"]) {
        const loose = await service.call<{ code: string; errors: { pointer: string }[] }>(
          "POST",
          `/api/webhooks/${hook.id}/rotate-secret?overlap_hours=${text}`,
          { token },
        );
        expect({ text, status: loose.status, code: loose.body.code, pointer: loose.body.errors?.[0]?.pointer }).toEqual(
          {
            text,
            status: 400,
            code: "invalid_request",
            pointer: "/overlap_hours",
          },
        );
      }
      expect(
        (await service.call("POST", `/api/webhooks/${hook.id}/rotate-secret?overlap_hours=2`, { token })).status,
      ).toBe(200);
      const missing = await service.call(
        "POST",
        `/api/webhooks/${hook.id}/deliveries/dlv_00000000000000000000000000/redeliver`,
        { token },
      );
      expect({ status: missing.status, code: missing.body.code }).toEqual({ status: 404, code: "not_found" });
    });

    test(`an account has at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks: the next is 422 webhook_limit_reached`, async () => {
      const crowded = await service.token();
      await service.db.sql`update accounts set rate_limit_per_minute = 100000 where id = ${crowded.accountId}`;
      for (let index = 0; index < MAX_WEBHOOKS_PER_ACCOUNT; index++) {
        const made = await create({ url: `${receiver.url}/${index}`, events: ["report.failed"] }, {}, crowded.token);
        expect(made.status).toBe(201);
      }
      const over = await create({ url: receiver.url, events: ["report.failed"] }, {}, crowded.token);
      expect({ status: over.status, code: over.body.code }).toEqual({ status: 422, code: "webhook_limit_reached" });
    });
  });
}

describe.skipIf(!HAS_POSTGRES)("webhooks on PostgreSQL without WEBHOOK_SECRET_KEY", () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ backend: "postgres" });
  });
  afterAll(async () => {
    await service?.stop();
  });

  test("creating one is 501 webhooks_unavailable, saying what the operator must set; nothing is stored", async () => {
    const { token } = await service.token();
    const response = await service.call("POST", "/api/webhooks", {
      token,
      body: { url: "https://hooks.example.com/x", events: ["report.failed"] },
    });
    expect({ status: response.status, code: response.body.code }).toEqual({
      status: 501,
      code: "webhooks_unavailable",
    });
    expect(response.body.detail).toContain("WEBHOOK_SECRET_KEY");
    const list = await service.call<WebhookList>("GET", "/api/webhooks", { token });
    expect(list.body.data).toEqual([]);
  });
});
