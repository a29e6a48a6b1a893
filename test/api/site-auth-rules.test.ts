/**
 * The rules of site credentials (shared/site-auth.ts) and their vault (server/reports/
 * site-auth-vault.ts): the header allowlist, value rules, the text forms the Action and the CLI
 * read, the headers they become, redaction, SITE_AUTH_KEY, and sealing on both backends — a
 * sealed value opens only with its key and for its report, and nothing readable is stored.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { newId } from "../../server/platform/ids.ts";
import { parseSiteAuthKeys, SiteAuthVault } from "../../server/reports/site-auth-vault.ts";
import { ConfigError, loadConfig } from "../../server/start/config.ts";
import {
  isAllowedSiteHeader,
  parseSiteAuthInputs,
  REDACTED,
  redactor,
  type SiteAuth,
  SiteAuthInputError,
  siteAuthHeaders,
  siteAuthProblems,
  siteAuthSecrets,
} from "../../shared/site-auth.ts";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../helpers/databases.ts";
import { dumpDatabase, found } from "../helpers/db-dump.ts";

const NAMES = { httpAuth: "http-auth", headers: "http-headers", cookies: "http-cookies" };

describe("site credentials: what is accepted", () => {
  test("header names: custom X- headers and the access gateways' own, nothing that reroutes or impersonates", () => {
    for (const name of [
      "X-Staging-Token",
      "x-bypass",
      "CF-Access-Client-Id",
      "cf-access-client-secret",
      "X-Vercel-Protection-Bypass",
    ])
      expect(isAllowedSiteHeader(name)).toBe(true);
    for (const name of [
      "Authorization",
      "Cookie",
      "Host",
      "User-Agent",
      "Accept-Encoding",
      "Content-Length",
      "Transfer-Encoding",
      "Proxy-Authorization",
      "Forwarded",
      "X-Forwarded-For",
      "x-forwarded-host",
      "X-Real-IP",
      "X-Original-URL",
      "X-HTTP-Method-Override",
      "X-WP-Nonce",
      "X-",
      "X Bad",
    ])
      expect({ name, allowed: isAllowedSiteHeader(name) }).toEqual({ name, allowed: false });
  });

  test("values: header values are visible ASCII, cookies are RFC 6265 values, a user name has no colon", () => {
    const ok: SiteAuth = {
      basic: { username: "staging", password: "p@ss: wörd" },
      headers: { "X-Token": "a b\tc" },
      cookies: { a: "1", b: '"quoted"', c: "" },
    };
    expect(siteAuthProblems(ok)).toEqual([]);
    const problems = siteAuthProblems({
      basic: { username: "a:b", password: "x\ny" },
      headers: { "X-One": "line\r\nX-Two: injected", "X-Empty": "", "x-one": "again" },
      cookies: { a: "x;y", b: "x y", c: 'in"side' },
    });
    expect(problems.map((problem) => problem.pointer)).toEqual([
      "/basic/username",
      "/basic/password",
      "/headers/X-One",
      "/headers/X-Empty",
      "/headers/x-one",
      "/cookies/a",
      "/cookies/b",
      "/cookies/c",
    ]);
    // A message never quotes a value.
    expect(JSON.stringify(problems)).not.toContain("injected");
  });

  test("the request headers they become: basic auth as RFC 7617 UTF-8, one Cookie header", () => {
    expect(
      siteAuthHeaders({
        basic: { username: "ünï", password: "pässword" },
        headers: { "X-Token": "t" },
        cookies: { a: "1", b: "2" },
      }),
    ).toEqual({
      "x-token": "t",
      authorization: `Basic ${Buffer.from("ünï:pässword", "utf8").toString("base64")}`,
      cookie: "a=1; b=2",
    });
  });

  test("text forms (Action inputs, CLI flags and variables) parse to the same credentials, or name the input", () => {
    expect(parseSiteAuthInputs({}, NAMES)).toBeUndefined();
    expect(parseSiteAuthInputs({ httpAuth: " ", headers: "\n", cookies: "" }, NAMES)).toBeUndefined();
    expect(
      parseSiteAuthInputs(
        {
          httpAuth: "user:pa:ss",
          headers: "X-A: 1\r\nCF-Access-Client-Id:  id.access \n",
          cookies: "a=1; b=x=y\nc=",
        },
        NAMES,
      ),
    ).toEqual({
      basic: { username: "user", password: "pa:ss" },
      headers: { "X-A": "1", "CF-Access-Client-Id": "id.access" },
      cookies: { a: "1", b: "x=y", c: "" },
    });
    expect(parseSiteAuthInputs({ headers: ["X-A: 1", "X-B: 2"], cookies: ["a=1", "b=2"] }, NAMES)).toEqual({
      headers: { "X-A": "1", "X-B": "2" },
      cookies: { a: "1", b: "2" },
    });
    const refused = (inputs: Parameters<typeof parseSiteAuthInputs>[0]) => {
      try {
        parseSiteAuthInputs(inputs, NAMES);
      } catch (error) {
        expect(error).toBeInstanceOf(SiteAuthInputError);
        return (error as Error).message;
      }
      throw new Error("accepted");
    };
    expect(refused({ httpAuth: "no-colon-secret" })).toBe("http-auth must look like user:password");
    expect(refused({ headers: "X-Forwarded-Host: evil" })).toStartWith(
      "http-headers: X-Forwarded-Host is not a header",
    );
    expect(refused({ headers: ":nameless" })).toBe('http-headers line 1 must look like "Name: value"');
    expect(refused({ cookies: "=1" })).toBe("http-cookies entry 1 must look like name=value");
    expect(refused({ cookies: "a=b,c" })).toStartWith("http-cookies: a must be a cookie value");
    expect(refused({ headers: Array.from({ length: 11 }, (_, i) => `X-H${i}: v`) })).toBe(
      "http-headers: may hold at most 10",
    );
  });

  test("redaction: every secret form replaced in strings, keys and nested values; short values left alone", () => {
    const auth: SiteAuth = {
      basic: { username: "admin", password: "s3cret-pass" },
      headers: { "X-Token": "tok/with+chars" },
      cookies: { k: "1", session: "cookie-value" },
    };
    const secrets = siteAuthSecrets(auth);
    expect(secrets).toContain(Buffer.from("admin:s3cret-pass").toString("base64"));
    expect(secrets).toContain(encodeURIComponent("tok/with+chars"));
    expect(secrets).not.toContain("admin");
    expect(secrets).not.toContain("1");
    const { deep, text } = redactor(secrets);
    expect(text("a s3cret-pass b tok%2Fwith%2Bchars c")).toBe(`a ${REDACTED} b ${REDACTED} c`);
    const redacted: unknown = deep({ list: ["cookie-value"], nested: { "s3cret-pass": 1, n: 2, admin: "admin" } });
    expect(redacted).toEqual({
      list: [REDACTED],
      nested: { [REDACTED]: 1, n: 2, admin: "admin" },
    });
  });
});

describe("SITE_AUTH_KEY", () => {
  const hex = "ab".repeat(32);
  const base64 = Buffer.alloc(32, 9).toString("base64");
  const base64url = Buffer.alloc(32, 250).toString("base64url");

  test("one key or a list (the first seals, all open), as hex or base64; unset is undefined", () => {
    expect(loadConfig({}).reports.siteAuthKeys).toBeUndefined();
    expect(
      parseSiteAuthKeys(`${base64}, ${hex},${base64url}`).keys?.map((key) => Buffer.from(key).toString("hex")),
    ).toEqual(["09".repeat(32), hex, "fa".repeat(32)]);
  });

  test("a bad key stops the start without repeating it", () => {
    let error: unknown;
    try {
      loadConfig({ SITE_AUTH_KEY: `${hex},too-short-secret-value` });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toEqual([
      "SITE_AUTH_KEY entry 2 must be 32 random bytes as 64 hex digits or base64 (e.g. the output of: openssl rand -base64 32)",
    ]);
    expect(JSON.stringify(problems)).not.toContain("too-short-secret-value");
  });
});

describe.each(BACKENDS)("the site-auth vault on %s", (backend) => {
  let db: TestDatabase;
  const auth: SiteAuth = { basic: { username: "u", password: "vault-password-1" }, cookies: { c: "vault-cookie-2" } };
  const secrets = ["vault-password-1", "vault-cookie-2"];

  beforeAll(async () => {
    db = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await db.destroy();
  });

  async function queuedReport(): Promise<string> {
    const id = newId("rep");
    const [account] = await db.sql<{ id: string }[]>`
      insert into accounts (id, email, plan_id) values (${newId("acc")}, ${`${id}@example.com`}, 'starter') returning id`;
    await db.sql`
      insert into reports (id, account_id, url, site_key, status, metadata, body, created_at)
      values (${id}, ${account?.id as string}, 'https://s.example/', 's.example', 'queued', '{}', '{}', now())`;
    return id;
  }

  test("seals with the first key, opens with any, for the same report only; stores nothing readable", async () => {
    const [oldKey, newKey] = [Buffer.alloc(32, 1), Buffer.alloc(32, 2)];
    const id = await queuedReport();
    const expires = new Date(Date.now() + 60_000);
    await new SiteAuthVault(db.sql, [oldKey]).seal(db.sql, id, auth, expires);
    expect(found(await dumpDatabase(db.sql), secrets)).toEqual([]);
    // Rotation: a vault whose list still has the old key opens it.
    expect(await new SiteAuthVault(db.sql, [newKey, oldKey]).open(id)).toEqual({ kind: "open", auth });
    // Without the key: unreadable, with the reason.
    const other = await new SiteAuthVault(db.sql, [newKey]).open(id);
    expect(other.kind).toBe("unreadable");
    // Moved to another report's row, it does not open (the report id is bound into it).
    const second = await queuedReport();
    await db.sql`
      insert into site_auth_secrets (report_id, key_id, sealed, expires_at)
      select ${second}, key_id, sealed, expires_at from site_auth_secrets where report_id = ${id}`;
    expect((await new SiteAuthVault(db.sql, [oldKey]).open(second)).kind).toBe("unreadable");
    expect((await SiteAuthVault.ephemeral(db.sql).open(id)).kind).toBe("unreadable");
    expect(await new SiteAuthVault(db.sql, [oldKey]).open(newId("rep"))).toEqual({ kind: "none" });
  });

  test("discard and the sweeper leave nothing behind: finished reports and expired rows go", async () => {
    const vault = new SiteAuthVault(db.sql, [Buffer.alloc(32, 3)]);
    const [kept, finished, expired, discarded] = [
      await queuedReport(),
      await queuedReport(),
      await queuedReport(),
      await queuedReport(),
    ];
    for (const id of [kept, finished, discarded]) await vault.seal(db.sql, id, auth, new Date(Date.now() + 60_000));
    await vault.seal(db.sql, expired, auth, new Date(Date.now() - 1_000));
    await db.sql`update reports set status = 'completed' where id = ${finished}`;
    await vault.discard(db.sql, discarded);
    await vault.sweep();
    const left = await db.sql<{ report_id: string }[]>`
      select report_id from site_auth_secrets where report_id in ${db.sql([kept, finished, expired, discarded])}`;
    expect(left.map((row) => row.report_id)).toEqual([kept]);
    // Deleting a report deletes its sealed credentials.
    await db.sql`delete from reports where id = ${kept}`;
    expect((await db.sql`select 1 from site_auth_secrets where report_id = ${kept}`).length).toBe(0);
  });
});
