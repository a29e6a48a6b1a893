/**
 * Tokens (docs/accounts.md): every failure mode is one indistinguishable 401 with
 * WWW-Authenticate; revocation and expiry take effect on the next request; reports are
 * private to their account.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { generateToken, hashToken, isWellFormedToken, visiblePrefix } from "../../server/access/token-format.ts";
import { BACKENDS } from "../helpers/databases.ts";
import { type ApiResponse, startTestService, type TestService } from "../helpers/service.ts";
import { startBlog, type TestSite } from "../helpers/sites.ts";

describe("token format", () => {
  test("wpr_ prefix, 40 characters, checksum that catches typos", () => {
    const token = generateToken();
    expect(token).toMatch(/^wpr_[0-9A-Za-z]{36}$/);
    expect(isWellFormedToken(token)).toBe(true);
    const typo = `${token.slice(0, 10)}${token[10] === "a" ? "b" : "a"}${token.slice(11)}`;
    expect(isWellFormedToken(typo)).toBe(false);
    expect(isWellFormedToken(token.slice(0, -1))).toBe(false);
    expect(isWellFormedToken(`${token}x`)).toBe(false);
    expect(visiblePrefix(token)).toBe(token.slice(0, 10));
    expect(hashToken(token).byteLength).toBe(32);
  });

  test("tokens are unique", () => {
    const tokens = new Set(Array.from({ length: 1000 }, generateToken));
    expect(tokens.size).toBe(1000);
  });
});

describe.each(BACKENDS)("authentication on %s", (backend) => {
  let service: TestService;
  let site: TestSite;

  beforeAll(async () => {
    service = await startTestService({ backend });
    site = startBlog();
  });
  afterAll(async () => {
    await service.stop();
    site.stop();
  });

  /** RFC 6750 §3.1: no error code when no credentials were sent; invalid_token when a token was. */
  const NO_CREDENTIALS = 'Bearer realm="wpreport"';
  const INVALID_TOKEN = 'Bearer realm="wpreport", error="invalid_token"';

  function expectUnauthorized(response: ApiResponse, challenge = INVALID_TOKEN) {
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe(challenge);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect(response.body.code).toBe("unauthorized");
    // No rate-limit headers: the caller is not known.
    expect(response.headers.get("x-ratelimit-limit")).toBeNull();
    return response.body.detail;
  }

  test("missing, malformed, mistyped, unknown, wrong scheme and query-string tokens all get the same 401", async () => {
    const { token } = await service.token();
    const unknown = generateToken();
    const typo = `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`;
    const details = new Set<unknown>();
    // No bearer credentials at all: the challenge without an error code.
    const withoutCredentials: Record<string, string>[] = [
      {},
      { authorization: "Bearer" },
      { authorization: "Bearer " },
      { authorization: `Basic ${btoa(`user:${token}`)}` },
      { authorization: `Token ${token}` },
    ];
    for (const headers of withoutCredentials) {
      details.add(expectUnauthorized(await service.call("GET", "/api/usage", { headers }), NO_CREDENTIALS));
    }
    // A token that is not valid: error="invalid_token".
    for (const candidate of ["not-a-token", typo, unknown]) {
      const headers = { authorization: `Bearer ${candidate}` };
      details.add(expectUnauthorized(await service.call("GET", "/api/usage", { headers }), INVALID_TOKEN));
    }
    // Tokens are read from the Authorization header only, never from the URL (logs keep URLs),
    // not even beside another scheme's header.
    details.add(expectUnauthorized(await service.call("GET", `/api/usage?access_token=${token}`), NO_CREDENTIALS));
    const basicAndQuery = await service.call("GET", `/api/usage?access_token=${token}`, {
      headers: { authorization: "Basic dXNlcjpwYXNz" },
    });
    details.add(expectUnauthorized(basicAndQuery, NO_CREDENTIALS));
    expect(details.size).toBe(1);

    const ok = await service.call("GET", "/api/usage", { token });
    expect(ok.status).toBe(200);
    // The scheme is case-insensitive (RFC 9110 §11.1).
    expect((await service.call("GET", "/api/usage", { headers: { authorization: `bearer ${token}` } })).status).toBe(
      200,
    );
  });

  test("a revoked token fails on its very next request", async () => {
    const { token, accountId, tokenId } = await service.token();
    expect((await service.call("GET", "/api/usage", { token })).status).toBe(200);
    expect(await service.running.services.tokens.revoke(accountId, tokenId)).toBe(true);
    expectUnauthorized(await service.call("GET", "/api/usage", { token }));
    // Other tokens of the account keep working.
    const { token: other } = await service.token((await service.running.services.accounts.findById(accountId))?.email);
    expect((await service.call("GET", "/api/usage", { token: other })).status).toBe(200);
  });

  test("an expired token fails on its next request", async () => {
    const { accountId } = await service.token();
    const { token, record } = await service.running.services.tokens.create(accountId, {
      expiresAt: new Date(Date.now() + 1500),
    });
    expect((await service.call("GET", "/api/usage", { token })).status).toBe(200);
    await Bun.sleep(1600);
    expectUnauthorized(await service.call("GET", "/api/usage", { token }));
    expect(record.expiresAt).toBeInstanceOf(Date);
  });

  test("a token is stored only as its SHA-256 and records when it was last used", async () => {
    const { token, tokenId } = await service.token();
    await service.call("GET", "/api/usage", { token });
    const rows = await service.db.sql`select * from api_tokens where id = ${tokenId}`;
    const row = rows[0] as Record<string, unknown>;
    expect(JSON.stringify(Object.values(row))).not.toContain(token.slice(4));
    expect(Buffer.from(row.token_hash as Uint8Array).equals(hashToken(token))).toBe(true);
    expect(row.prefix).toBe(token.slice(0, 10));
    await Bun.sleep(50); // last_used_at is written without delaying the request
    const [after] = await service.db.sql`select last_used_at from api_tokens where id = ${tokenId}`;
    expect(after?.last_used_at).toBeInstanceOf(Date);
  });

  test("another account's report is 404, like an unknown or malformed id", async () => {
    const alice = await service.token();
    const bob = await service.token();
    const created = await service.call("POST", "/api/generate-report", { token: alice.token, body: { url: site.url } });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect((await service.call("GET", `/api/report/${id}`, { token: alice.token })).status).toBe(200);

    const asBob = await service.call("GET", `/api/report/${id}`, { token: bob.token });
    const unknown = await service.call("GET", `/api/report/rep_${"0".repeat(26)}`, { token: bob.token });
    const malformed = await service.call("GET", "/api/report/12345", { token: bob.token });
    for (const response of [asBob, unknown, malformed]) {
      expect(response.status).toBe(404);
      expect(response.body.code).toBe("not_found");
      expect(response.body.detail).toBe("There is no report with this id in your account.");
    }
  });
});
