/**
 * HTTP conventions on a real instance, with real clients (node:http for the exact bytes on
 * the wire, node:zlib and curl to decode them): 405 with Allow from the app's own route
 * table, HEAD and OPTIONS, gzip/br compression, ETag and 304 for finished reports, q-value
 * content negotiation, CORS for /api (preflights without a token or a rate-limit count) and
 * none for the web interface. The browser's view of CORS is in test/web/cors.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import http from "node:http";
import zlib from "node:zlib";
import { createApp } from "../../server/start/app.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { blogHomepage, startBlog, startSite, type TestSite } from "../helpers/sites.ts";
import { Browserless } from "../web/forms.ts";

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The bytes as they came over the wire (not decoded). */
  body: Buffer;
}

/** One request with node:http, which (unlike fetch) neither adds Accept-Encoding nor decodes. */
function raw(url: string, method: string, headers: Record<string, string> = {}, body?: string): Promise<Raw> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: target.hostname, port: target.port, path: target.pathname + target.search, method, headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
        );
      },
    );
    request.setTimeout(15_000, () => request.destroy(new Error(`timed out: ${method} ${url}`)));
    request.on("error", reject);
    request.end(body);
  });
}

const json = (response: Raw) => JSON.parse(response.body.toString("utf8")) as Record<string, unknown>;
const varyOf = (response: Raw) =>
  String(response.headers.vary ?? "")
    .split(",")
    .map((token) => token.trim().toLowerCase());

let service: TestService;
let blog: TestSite;
/** A finished report (made once) and the token of its account. */
let reportId: string;
let reportToken: string;

beforeAll(async () => {
  service = await startTestService();
  blog = startBlog();
  // Enterprise: this file makes a few hundred calls with this token within a minute.
  ({ token: reportToken } = await service.token(undefined, "enterprise"));
  const created = await raw(
    `${service.url}/api/generate-report`,
    "POST",
    { authorization: `Bearer ${reportToken}`, "content-type": "application/json", "accept-encoding": "gzip" },
    JSON.stringify({ url: blog.url }),
  );
  expect(created.status).toBe(201);
  // The 201 itself is compressed: responses to POST are as large as the report.
  expect(created.headers["content-encoding"]).toBe("gzip");
  reportId = String(JSON.parse(zlib.gunzipSync(created.body).toString("utf8")).id);
});
afterAll(async () => {
  await service.stop();
  blog.stop();
});

const report = (headers: Record<string, string> = {}, token = reportToken) =>
  raw(`${service.url}/api/report/${reportId}`, "GET", { authorization: `Bearer ${token}`, ...headers });

describe("405 Method Not Allowed", () => {
  test("a wrong method on an API route is 405 problem+json with Allow, before any token check", async () => {
    const { token } = await service.token();
    const cases: [string, string, string][] = [
      ["GET", "/api/generate-report", "POST, OPTIONS"],
      ["DELETE", `/api/report/${reportId}`, "GET, HEAD, OPTIONS"],
      ["PUT", "/api/usage", "GET, HEAD, OPTIONS"],
      ["POST", "/api/usage/", "GET, HEAD, OPTIONS"],
    ];
    for (const [method, path, allow] of cases) {
      for (const authorization of [`Bearer ${token}`, undefined]) {
        const response = await raw(`${service.url}${path}`, method, authorization ? { authorization } : {});
        const body = json(response);
        expect({ method, path, status: response.status, allow: response.headers.allow, code: body.code }).toEqual({
          method,
          path,
          status: 405,
          allow,
          code: "method_not_allowed",
        });
        expect(response.headers["content-type"]).toBe("application/problem+json");
        expect(body.allowed_methods).toEqual(allow.split(", "));
        expect(body.type).toBe(`${service.url}/problems/method_not_allowed`);
      }
    }
  });

  test("unknown paths stay 404, whatever the method", async () => {
    for (const [method, path] of [
      ["GET", "/api/nothing-here"],
      ["DELETE", "/api/nothing-here"],
      ["OPTIONS", "/api/nothing-here"],
      ["GET", "/api/report/"],
      ["PUT", "/nowhere"],
    ] as const) {
      const response = await raw(`${service.url}${path}`, method);
      expect({ method, path, status: response.status, allow: response.headers.allow }).toEqual({
        method,
        path,
        status: 404,
        allow: undefined,
      });
    }
  });

  test("every route of the app is covered: Allow comes from the route table, not a list", async () => {
    // The route list of an app composed like the running one.
    const routes = createApp(service.running.services).routes.filter((route) => route.path !== "/metrics");
    const concrete = (path: string) => path.replace(/:[^/]+/g, "x1");
    const expected = new Map<string, Set<string>>();
    for (const route of routes) {
      const methods = expected.get(concrete(route.path)) ?? new Set<string>();
      methods.add(route.method);
      expected.set(concrete(route.path), methods);
    }
    expect(expected.size).toBeGreaterThan(25);
    for (const [path, methods] of expected) {
      // PUT is a method no route of the app answers (PATCH is: /api/webhooks/{id}).
      const response = await raw(`${service.url}${path}`, "PUT", { accept: "application/json" });
      const allow = new Set(String(response.headers.allow).split(", "));
      expect({ path, status: response.status }).toEqual({ path, status: 405 });
      for (const method of methods)
        expect({ path, method, allowed: allow.has(method) }).toEqual({ path, method, allowed: true });
      expect(allow.has("HEAD")).toBe(methods.has("GET"));
      expect(allow.has("OPTIONS")).toBe(true);
    }
  });

  test("/metrics stays unadvertised while it is closed: 404 for every method, no Allow", async () => {
    for (const method of ["GET", "POST", "OPTIONS"]) {
      const response = await raw(`${service.url}/metrics`, method);
      expect({ method, status: response.status, allow: response.headers.allow }).toEqual({
        method,
        status: 404,
        allow: undefined,
      });
    }
  });

  test("a browser on a web page gets an HTML 405 page with Allow", async () => {
    const response = await raw(`${service.url}/dashboard`, "DELETE", { accept: "text/html" });
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe("GET, HEAD, OPTIONS");
    expect(response.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(response.body.toString("utf8")).toContain("DELETE is not allowed on /dashboard");
    const hook = await raw(`${service.url}/webhooks/stripe`, "GET");
    expect({ status: hook.status, allow: hook.headers.allow }).toEqual({ status: 405, allow: "POST, OPTIONS" });
  });

  test("what Allow lists is answered: HEAD like GET without a body, OPTIONS with 204 and Allow", async () => {
    const { token } = await service.token();
    const head = await raw(`${service.url}/api/usage`, "HEAD", { authorization: `Bearer ${token}` });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(Number(head.headers["content-length"])).toBeGreaterThan(100);
    expect(head.headers["x-ratelimit-remaining"]).toBeDefined();
    for (const [path, allow] of [
      ["/api/usage", "GET, HEAD, OPTIONS"],
      ["/tokens", "GET, HEAD, POST, OPTIONS"],
      ["/tokens/tok_1/revoke", "POST, OPTIONS"],
    ]) {
      const options = await raw(`${service.url}${path}`, "OPTIONS");
      expect({ path, status: options.status, allow: options.headers.allow, body: options.body.length }).toEqual({
        path,
        status: 204,
        allow,
        body: 0,
      });
    }
  });
});

describe("compression", () => {
  test("a report comes as br or gzip per Accept-Encoding; decoded, it is the identity bytes", async () => {
    const identity = await report({ "accept-encoding": "identity" });
    expect(identity.status).toBe(200);
    expect(identity.headers["content-encoding"]).toBeUndefined();
    expect(varyOf(identity)).toContain("accept-encoding");
    expect(Number(identity.headers["content-length"])).toBe(identity.body.length);

    const gzip = await report({ "accept-encoding": "gzip" });
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(Number(gzip.headers["content-length"])).toBe(gzip.body.length);
    expect(zlib.gunzipSync(gzip.body).equals(identity.body)).toBe(true);
    expect(gzip.body.length).toBeLessThan(identity.body.length / 2);

    const br = await report({ "accept-encoding": "gzip, deflate, br" }); // ties go to br
    expect(br.headers["content-encoding"]).toBe("br");
    expect(Number(br.headers["content-length"])).toBe(br.body.length);
    expect(zlib.brotliDecompressSync(br.body).equals(identity.body)).toBe(true);
    expect(varyOf(br)).toEqual(["accept", "accept-encoding"]);
  });

  test("q-values decide the coding; q=0 excludes it", async () => {
    const cases: [string, string | undefined][] = [
      ["gzip;q=1, br;q=0.5", "gzip"],
      ["br;q=0, gzip", "gzip"],
      ["br;q=0, gzip;q=0", undefined],
      ["identity", undefined],
      ["*", "br"],
      ["*;q=0.5, gzip", "gzip"],
      ["identity;q=0, br;q=0.1", "br"],
      ["deflate", undefined],
      ["x-unknown, gzip;q=0.001", "gzip"],
    ];
    for (const [header, coding] of cases) {
      const response = await report({ "accept-encoding": header });
      expect({ header, status: response.status, coding: response.headers["content-encoding"] }).toEqual({
        header,
        status: 200,
        coding,
      });
    }
  });

  test.skipIf(!Bun.which("curl"))("curl --compressed gets the same report", async () => {
    const identity = await report();
    const curl = Bun.spawn(
      [
        "curl",
        "-sS",
        "--compressed",
        "-D",
        "-",
        "--max-time",
        "15",
        "-H",
        `authorization: Bearer ${reportToken}`,
      ].concat(`${service.url}/api/report/${reportId}`),
      { stdout: "pipe", stderr: "pipe" },
    );
    const output = await new Response(curl.stdout).text();
    expect(await curl.exited).toBe(0);
    const [head = "", body = ""] = output.split("\r\n\r\n");
    expect(head).toMatch(/^content-encoding: (br|gzip)$/im);
    expect(JSON.parse(body)).toEqual(JSON.parse(identity.body.toString("utf8")));
  });

  test("small bodies, HEAD, 204 and 304 are never compressed", async () => {
    const { token } = await service.token();
    const usage = await raw(`${service.url}/api/usage`, "GET", {
      authorization: `Bearer ${token}`,
      "accept-encoding": "gzip, br",
    });
    expect(usage.body.length).toBeLessThan(1024);
    expect(usage.headers["content-encoding"]).toBeUndefined();
    expect(varyOf(usage)).toContain("accept-encoding");
    const problem = await raw(`${service.url}/api/usage`, "GET", { "accept-encoding": "gzip, br" });
    expect(problem.status).toBe(401);
    expect(problem.headers["content-encoding"]).toBeUndefined();

    const identity = await report();
    const head = await raw(`${service.url}/api/report/${reportId}`, "HEAD", {
      authorization: `Bearer ${reportToken}`,
      "accept-encoding": "gzip, br",
    });
    expect(head.status).toBe(200);
    expect(head.headers["content-encoding"]).toBeUndefined();
    expect(Number(head.headers["content-length"])).toBe(identity.body.length);
    expect(varyOf(head)).toContain("accept-encoding");

    const options = await raw(`${service.url}/api/usage`, "OPTIONS", { "accept-encoding": "gzip, br" });
    expect(options.status).toBe(204);
    expect(options.headers["content-encoding"]).toBeUndefined();

    const etag = String((await report({ "accept-encoding": "gzip" })).headers.etag);
    const notModified = await report({ "accept-encoding": "gzip", "if-none-match": etag });
    expect(notModified.status).toBe(304);
    expect(notModified.headers["content-encoding"]).toBeUndefined();
    expect(notModified.body.length).toBe(0);
  });

  test("web pages, styles and scripts are compressed too", async () => {
    const page = await raw(`${service.url}/`, "GET", { "accept-encoding": "br", accept: "text/html" });
    expect(page.status).toBe(200);
    expect(page.headers["content-encoding"]).toBe("br");
    expect(zlib.brotliDecompressSync(page.body).toString("utf8")).toStartWith("<!doctype html>");
    const css = await raw(`${service.url}/assets/app.css`, "GET", { "accept-encoding": "gzip" });
    expect(css.headers["content-encoding"]).toBe("gzip");
    expect(css.headers["cache-control"]).toBe("public, max-age=3600");
    expect(zlib.gunzipSync(css.body).toString("utf8")).toContain("{");
  });
});

describe("ETag and 304 for reports", () => {
  test("a finished report has a strong ETag per representation, and Cache-Control: private, no-cache", async () => {
    const identity = await report();
    const sarif = await report({ accept: "application/sarif+json" });
    const gzip = await report({ "accept-encoding": "gzip" });
    const br = await report({ "accept-encoding": "br" });
    const sarifBr = await report({ accept: "application/sarif+json", "accept-encoding": "br" });
    const tags = [identity, sarif, gzip, br, sarifBr].map((response) => String(response.headers.etag));
    for (const tag of tags) expect(tag).toMatch(/^"[A-Za-z0-9_-]{22}(-br|-gzip)?"$/);
    expect(new Set(tags).size).toBe(tags.length);
    expect(tags[2]).toBe(`${tags[0]?.slice(0, -1)}-gzip"`);
    for (const response of [identity, sarif, gzip]) {
      expect(response.headers["cache-control"]).toBe("private, no-cache");
    }
    // The same bytes, the same tag: it is a hash of what is sent.
    expect((await report()).headers.etag).toBe(tags[0]);
  });

  test("If-None-Match: the tag, a list, a weak form or * give 304 without a body; another tag gives 200", async () => {
    const first = await report();
    const etag = String(first.headers.etag);
    for (const ifNoneMatch of [etag, `"other", ${etag}`, `W/${etag}`, "*", `"a",W/${etag} , "b"`]) {
      const response = await report({ "if-none-match": ifNoneMatch });
      expect({ ifNoneMatch, status: response.status, bytes: response.body.length }).toEqual({
        ifNoneMatch,
        status: 304,
        bytes: 0,
      });
      expect(response.headers.etag).toBe(etag);
      expect(response.headers["cache-control"]).toBe("private, no-cache");
      expect(varyOf(response)).toContain("accept");
      expect(response.headers["x-request-id"]).toMatch(/^req_/);
      expect(response.headers["x-ratelimit-remaining"]).toBeDefined();
      expect(response.headers["content-type"]).toBeUndefined();
    }
    for (const ifNoneMatch of ['"other"', `${etag.slice(0, -1)}x"`]) {
      expect((await report({ "if-none-match": ifNoneMatch })).status).toBe(200);
    }
    // Another representation does not match: SARIF with the JSON tag, br with the gzip tag.
    const sarif = await report({ accept: "application/sarif+json", "if-none-match": etag });
    expect(sarif.status).toBe(200);
    expect(sarif.headers["content-type"]).toBe("application/sarif+json; charset=utf-8");
    const gzipTag = String((await report({ "accept-encoding": "gzip" })).headers.etag);
    expect((await report({ "accept-encoding": "gzip", "if-none-match": gzipTag })).status).toBe(304);
    const br = await report({ "accept-encoding": "br", "if-none-match": gzipTag });
    expect(br.status).toBe(200);
    expect(zlib.brotliDecompressSync(br.body).equals(first.body)).toBe(true);
  });

  test("a 304 needs the token like a 200: no token is 401, another account's token is 404", async () => {
    const etag = String((await report()).headers.etag);
    const anonymous = await raw(`${service.url}/api/report/${reportId}`, "GET", { "if-none-match": etag });
    expect(anonymous.status).toBe(401);
    const { token: stranger } = await service.token();
    expect((await report({ "if-none-match": etag }, stranger)).status).toBe(404);
  });

  test("a report still in progress has no ETag and is not stored", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const site = startSite({
      "/": async () => {
        await gate;
        return new Response(blogHomepage(site.url.replace(/\/$/, "")), { headers: { "content-type": "text/html" } });
      },
    });
    try {
      const { token } = await service.token();
      const accepted = await service.call("POST", "/api/generate-report", {
        token,
        body: { url: site.url },
        headers: { prefer: "respond-async" },
      });
      expect(accepted.status).toBe(202);
      const pending = await raw(`${service.url}/api/report/${accepted.body.id}`, "GET", {
        authorization: `Bearer ${token}`,
        "if-none-match": "*",
      });
      expect(pending.status).toBe(200);
      expect(["queued", "running"]).toContain(String(json(pending).status));
      expect(pending.headers.etag).toBeUndefined();
      expect(pending.headers["cache-control"]).toBe("no-store");
    } finally {
      release();
      site.stop();
    }
  });
});

describe("Accept with q-values", () => {
  test("JSON or SARIF as the Accept header ranks them; nothing acceptable is 406", async () => {
    const cases: [string | undefined, string | undefined][] = [
      [undefined, "application/json"],
      ["", "application/json"],
      ["*/*", "application/json"],
      ["application/*", "application/json"],
      ["application/json", "application/json"],
      ["application/sarif+json", "application/sarif+json"],
      ["APPLICATION/SARIF+JSON", "application/sarif+json"],
      ["application/json;q=0.5, application/sarif+json", "application/sarif+json"],
      ["application/sarif+json;q=0.5, application/json", "application/json"],
      ["application/sarif+json;q=0, */*", "application/json"],
      ["application/sarif+json;q=0, application/json", "application/json"],
      ["text/html, application/sarif+json;q=0.1", "application/sarif+json"],
      ["application/sarif+json;q=0", undefined],
      ["text/csv", undefined],
      ["application/json;q=0, application/sarif+json;q=0", undefined],
    ];
    for (const [accept, type] of cases) {
      const response = await report(accept === undefined ? {} : { accept });
      const got =
        response.status === 200 ? String(response.headers["content-type"]).split(";")[0] : String(response.status);
      expect({ accept, got }).toEqual({ accept, got: type ?? "406" });
      if (type === undefined) {
        const problem = json(response);
        expect(problem.code).toBe("not_acceptable");
        expect(problem.available).toEqual(["application/json", "application/sarif+json"]);
        expect(response.headers["content-type"]).toBe("application/problem+json");
      } else {
        const body = json(response);
        expect(type === "application/sarif+json" ? body.version : body.id).toBe(
          type === "application/sarif+json" ? "2.1.0" : reportId,
        );
      }
    }
  });
});

describe("CORS", () => {
  const API_CORS = {
    "access-control-allow-origin": "*",
  };

  test("a preflight is answered without a token and without counting against the rate limit", async () => {
    const { token } = await service.token();
    const before = await raw(`${service.url}/api/usage`, "GET", { authorization: `Bearer ${token}` });
    const limit = Number(before.headers["x-ratelimit-limit"]);
    const remaining = Number(before.headers["x-ratelimit-remaining"]);
    for (let i = 0; i < limit + 5; i++) {
      const preflight = await raw(`${service.url}/api/generate-report`, "OPTIONS", {
        origin: "https://dashboard.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type, idempotency-key, prefer",
      });
      expect(preflight.status).toBe(204);
      if (i > 0) continue;
      expect(preflight.headers).toMatchObject({
        ...API_CORS,
        "access-control-allow-methods": "POST, OPTIONS",
        "access-control-max-age": "7200",
        allow: "POST, OPTIONS",
      });
      const allowed = String(preflight.headers["access-control-allow-headers"]).toLowerCase().split(", ");
      for (const name of ["authorization", "content-type", "idempotency-key", "prefer", "accept", "x-request-id"]) {
        expect(allowed).toContain(name);
      }
      expect(preflight.headers["access-control-allow-credentials"]).toBeUndefined();
      expect(preflight.headers["x-ratelimit-remaining"]).toBeUndefined();
    }
    const after = await raw(`${service.url}/api/usage`, "GET", { authorization: `Bearer ${token}` });
    expect(after.status).toBe(200);
    // One more call counted (this one); more than `limit` preflights were not.
    expect(Number(after.headers["x-ratelimit-remaining"])).toBeGreaterThanOrEqual(remaining - 1);
  });

  test("every /api answer is readable from any origin, errors included, with the headers a client needs exposed", async () => {
    const { token } = await service.token();
    const origin = { origin: "https://dashboard.example" };
    const answers = [
      await raw(`${service.url}/api/usage`, "GET", { ...origin, authorization: `Bearer ${token}` }),
      await raw(`${service.url}/api/usage`, "GET", origin), // 401
      await raw(`${service.url}/api/nothing-here`, "GET", origin), // 404
      await raw(`${service.url}/api/usage`, "DELETE", origin), // 405
      // 413 from the HTTP wrapper, before the app.
      await raw(`${service.url}/api/generate-report`, "POST", origin, "x".repeat(100_000)),
      await raw(`${service.url}/api/openapi.json`, "GET", origin),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 401, 404, 405, 413, 200]);
    for (const answer of answers) {
      expect(answer.headers).toMatchObject(API_CORS);
      expect(answer.headers["access-control-allow-credentials"]).toBeUndefined();
      const exposed = String(answer.headers["access-control-expose-headers"]).toLowerCase().split(", ");
      for (const name of [
        "location",
        "link",
        "etag",
        "retry-after",
        "ratelimit",
        "ratelimit-policy",
        "x-ratelimit-remaining",
        "x-request-id",
        "idempotent-replayed",
        "preference-applied",
        "queue-position",
      ]) {
        expect(exposed).toContain(name);
      }
    }
  });

  test("the web interface, the webhook and the operations endpoints get no CORS headers", async () => {
    const origin = { origin: "https://dashboard.example" };
    const preflight = { ...origin, "access-control-request-method": "POST" };
    const answers = [
      await raw(`${service.url}/`, "GET", origin),
      await raw(`${service.url}/login`, "OPTIONS", preflight),
      await raw(`${service.url}/tokens`, "OPTIONS", preflight),
      await raw(`${service.url}/webhooks/stripe`, "OPTIONS", preflight),
      await raw(`${service.url}/webhooks/stripe`, "POST", { ...origin, "content-type": "application/json" }, "{}"),
      await raw(`${service.url}/healthz`, "GET", origin),
      await raw(`${service.url}/problems/not_found`, "GET", origin),
    ];
    for (const answer of answers) {
      const cors = Object.keys(answer.headers).filter((name) => name.startsWith("access-control-"));
      expect(cors).toEqual([]);
    }
  });
});

describe("web pages and BREACH", () => {
  test("the CSRF field differs on every page (masked per response) and each one is accepted", async () => {
    const web = new Browserless(service.url);
    const first = Browserless.csrfOf((await web.get("/login")).body);
    const second = Browserless.csrfOf((await web.get("/login")).body);
    expect(first).not.toBe(second);
    const email = `breach-${Date.now().toString(36)}@example.com`;
    const signUp = await web.submit("/signup", "/signup", { email, password: "correct horse battery staple" });
    expect(signUp.status).toBe(303);
    const tokensPage = (await web.get("/tokens")).body;
    const a = Browserless.csrfOf(tokensPage);
    const b = Browserless.csrfOf((await web.get("/tokens")).body);
    expect(a).not.toBe(b);
    for (const [name, csrf] of [
      ["a", a],
      ["b", b],
    ]) {
      const created = await web.request("POST", "/tokens", { form: { _csrf: csrf as string, name: `t-${name}` } });
      expect({ name, status: created.status }).toEqual({ name, status: 201 });
    }
    // A masked value of another browser's token still does not pass.
    const other = Browserless.csrfOf((await new Browserless(service.url).get("/login")).body);
    const refused = await web.request("POST", "/tokens", { form: { _csrf: other, name: "foreign" } });
    expect(refused.status).toBe(403);
  });
});
