/**
 * Site credentials through the service (POST /api/generate-report with `site_auth`), on both
 * backends and with the worker in another process: a site behind basic auth, a cookie and a
 * header is analyzed fully; the credentials reach its origin only; and they leave no trace —
 * not in the report, not in any row of the database (searched while the analysis runs, when only
 * their ciphertext exists, and after, when nothing is left), not in the logs of any process
 * (LOG_LEVEL=debug), not in a problem. The real WordPress fixture behind the same protection is
 * analyzed as fully as without it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { openDatabase } from "../../server/platform/db/database.ts";
import { silentLogger } from "../../server/platform/logger.ts";
import type { Report } from "../../shared/report.ts";
import { REDACTED } from "../../shared/site-auth.ts";
import { createPostgresDatabase, preparePgliteDataDir, type TestDatabase } from "../helpers/databases.ts";
import { dumpDatabase, found, pgDump } from "../helpers/db-dump.ts";
import { HAS_POSTGRES, HAS_WORDPRESS, WORDPRESS_URL } from "../helpers/env.ts";
import { runCli, type ServerProcess, startServerProcess } from "../helpers/processes.ts";
import {
  newSecrets,
  type ProtectedSite,
  type Recorder,
  secretForms,
  siteAuthOf,
  startProtectedBlog,
  startProtectedProxy,
  startRecorder,
} from "../helpers/protected-site.ts";
import { startTestService } from "../helpers/service.ts";
import { BLOG_VERSION } from "../helpers/sites.ts";

const KEY = Buffer.alloc(32, 7).toString("base64");

interface Layout {
  name: string;
  backend: "pglite" | "postgres";
  /** One process (API and worker), or an API process and a worker process. */
  split: boolean;
}

const LAYOUTS: Layout[] = [
  { name: "the embedded database, one process (a key made at start-up)", backend: "pglite", split: false },
  ...(HAS_POSTGRES
    ? [
        {
          name: "PostgreSQL, an API process and a worker process (SITE_AUTH_KEY)",
          backend: "postgres",
          split: true,
        } as const,
      ]
    : []),
];

async function poll(url: string, token: string, until: (report: Report) => boolean): Promise<Report> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const report = (await (await fetch(url, { headers: { authorization: `Bearer ${token}` } })).json()) as Report;
    if (until(report)) return report;
    if (Date.now() > deadline) throw new Error(`report stuck in ${report.status}`);
    await Bun.sleep(100);
  }
}

describe.each(LAYOUTS)("site credentials on $name", (layout) => {
  const secrets = newSecrets();
  const forms = secretForms(secrets);
  let other: Recorder;
  let site: ProtectedSite;
  let db: TestDatabase | undefined;
  let dataDir: string | undefined;
  let api: ServerProcess;
  let worker: ServerProcess | undefined;
  let token: string;

  const env = () => ({
    LOG_LEVEL: "debug",
    TARGET_ALLOWLIST: "127.0.0.1",
    ...(db ? { DATABASE_URL: db.url as string, SITE_AUTH_KEY: KEY } : { DATA_DIR: dataDir as string }),
  });
  /** Every row of the database, read while the service runs (PGlite through the server's socket). */
  const dump = async () => {
    if (db) return `${await dumpDatabase(db.sql)}\n${await pgDump(db.url as string)}`;
    const client = await openDatabase(
      { databaseUrl: undefined, dataDir: dataDir as string, dbPoolMax: 1 },
      silentLogger,
      {
        role: "cli",
      },
    );
    try {
      return await dumpDatabase(client.sql);
    } finally {
      await client.close();
    }
  };
  const sealedRows = (text: string) => Number(/-- public\.site_auth_secrets: (\d+) rows/.exec(text)?.[1]);
  const logs = () => [api, worker].map((process) => `${process?.stdout() ?? ""}${process?.stderr() ?? ""}`).join("\n");

  beforeAll(async () => {
    other = startRecorder();
    site = startProtectedBlog(secrets, other);
    if (layout.backend === "postgres") db = await createPostgresDatabase();
    else dataDir = await preparePgliteDataDir();
    api = await startServerProcess({ ...env(), ...(layout.split ? { WPREPORT_ROLE: "api" } : {}) });
    const created = await runCli(["token", "create", "--email", "staging@example.com", "--plan", "business"], env());
    expect(created.code).toBe(0);
    token = created.stdout.trim().split("\n").at(-1) ?? "";
  }, 60_000);

  afterAll(async () => {
    await worker?.stop();
    await api?.stop();
    site?.stop();
    other?.stop();
    await db?.destroy();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test("analyzed fully with its credentials; sealed while it runs, gone after, in no report, row or log", async () => {
    const release = site.hold();
    const accepted = await fetch(`${api.url}/api/generate-report`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", prefer: "respond-async" },
      body: JSON.stringify({ url: site.url, site_auth: siteAuthOf(secrets), metadata: { environment: "staging" } }),
    });
    expect(accepted.status).toBe(202);
    const queued = (await accepted.json()) as Report;
    expect(found(JSON.stringify(queued), forms)).toEqual([]);
    const location = accepted.headers.get("location") as string;

    // The worker (another process, when split) starts after the report was queued.
    if (layout.split) worker = await startServerProcess({ ...env(), WPREPORT_ROLE: "worker" });
    await poll(location, token, (report) => report.status === "running");
    // Running, held at the homepage: only the ciphertext is in the database.
    const during = await dump();
    expect(sealedRows(during)).toBe(1);
    expect(found(during, forms)).toEqual([]);

    release();
    const report = await poll(
      location,
      token,
      (current) => current.status === "completed" || current.status === "failed",
    );
    expect(report.status).toBe("completed");
    expect(report.wordpress?.detected).toBe(true);
    expect(report.wordpress?.version).toBe(BLOG_VERSION);
    // Every request the analyzer made to the site carried the credentials.
    expect(site.refused).toEqual([]);
    expect(site.admitted.length).toBeGreaterThan(10);
    // The site echoed two secrets into its title and description: the report has them redacted.
    expect(report.seo?.title).toBe(`Staging ${REDACTED}`);
    expect(found(JSON.stringify(report), forms)).toEqual([]);
    // The other origin (assets, the robots.txt redirect) never saw them.
    expect(other.requests.length).toBeGreaterThan(0);
    expect(found(JSON.stringify(other.requests), forms)).toEqual([]);

    const after = await dump();
    expect(sealedRows(after)).toBe(0);
    expect(found(after, forms)).toEqual([]);
    expect(logs()).toContain('"msg"');
    expect(found(logs(), forms)).toEqual([]);
  }, 120_000);

  test("a synchronous request works the same; refused credentials are 400s that never quote a value", async () => {
    const response = await fetch(`${api.url}/api/generate-report`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ url: site.url, site_auth: siteAuthOf(secrets) }),
    });
    expect(response.status).toBe(201);
    const report = (await response.json()) as Report;
    expect(report.wordpress?.detected).toBe(true);
    expect(found(JSON.stringify(report), forms)).toEqual([]);

    const refused = async (site_auth: unknown, pointer: string) => {
      const answer = await fetch(`${api.url}/api/generate-report`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ url: site.url, site_auth }),
      });
      const text = await answer.text();
      expect(answer.status).toBe(400);
      expect(text).toContain(pointer);
      expect(found(text, forms)).toEqual([]);
    };
    await refused({ headers: { "X-Forwarded-For": secrets.header } }, "/site_auth/headers/X-Forwarded-For");
    await refused({ headers: { Authorization: `Bearer ${secrets.header}` } }, "/site_auth/headers/Authorization");
    await refused(
      { headers: { "X-Staging-Token": `${secrets.header}\r\nX-Injected: 1` } },
      "/site_auth/headers/X-Staging-Token",
    );
    await refused({ cookies: { staging_pass: `${secrets.cookie}; admin=1` } }, "/site_auth/cookies/staging_pass");
    await refused({ basic: { username: "a:b", password: secrets.password } }, "/site_auth/basic/username");
    await refused({ basic: { username: "staging", password: secrets.password }, token: secrets.password }, "site_auth");

    const after = await dump();
    expect(sealedRows(after)).toBe(0);
    expect(found(after, forms)).toEqual([]);
    expect(found(logs(), forms)).toEqual([]);
  }, 120_000);
});

describe.skipIf(!HAS_POSTGRES)("site credentials on PostgreSQL without SITE_AUTH_KEY", () => {
  test("are refused with 501 site_auth_unavailable before anything is charged; other requests work", async () => {
    const service = await startTestService({ backend: "postgres" });
    const other = startRecorder();
    const secrets = newSecrets();
    const site = startProtectedBlog(secrets, other);
    try {
      const { token } = await service.token();
      const refused = await service.call("POST", "/api/generate-report", {
        token,
        body: { url: site.url, site_auth: siteAuthOf(secrets) },
      });
      expect(refused.status).toBe(501);
      expect(refused.body.code).toBe("site_auth_unavailable");
      expect(found(JSON.stringify(refused.body), secretForms(secrets))).toEqual([]);
      const usage = await service.call<{ used: number; in_progress: number }>("GET", "/api/usage", { token });
      expect([usage.body.used, usage.body.in_progress]).toEqual([0, 0]);
      expect(site.admitted).toEqual([]);
      // Without credentials the same request is an ordinary report (of the 401 page).
      const plain = await service.call("POST", "/api/generate-report", { token, body: { url: site.url } });
      expect(plain.status).toBe(201);
    } finally {
      site.stop();
      other.stop();
      await service.stop();
    }
  }, 60_000);
});

describe.skipIf(!HAS_POSTGRES)("a worker that cannot open the sealed credentials", () => {
  test("fails the report (uncharged, nothing analyzed without them), deletes the sealed row and says why in the log", async () => {
    const db = await createPostgresDatabase();
    const secrets = newSecrets();
    const other = startRecorder();
    const site = startProtectedBlog(secrets, other);
    const common = { DATABASE_URL: db.url as string, TARGET_ALLOWLIST: "127.0.0.1", LOG_LEVEL: "info" };
    // The API seals with one key; the worker was given another (a misconfigured rollout).
    const api = await startServerProcess({ ...common, WPREPORT_ROLE: "api", SITE_AUTH_KEY: KEY });
    const worker = await startServerProcess({
      ...common,
      WPREPORT_ROLE: "worker",
      SITE_AUTH_KEY: Buffer.alloc(32, 8).toString("base64"),
    });
    try {
      const created = await runCli(["token", "create", "--email", "keys@example.com"], common);
      const token = created.stdout.trim().split("\n").at(-1) ?? "";
      const accepted = await fetch(`${api.url}/api/generate-report`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", prefer: "respond-async" },
        body: JSON.stringify({ url: site.url, site_auth: siteAuthOf(secrets) }),
      });
      expect(accepted.status).toBe(202);
      const report = await poll(accepted.headers.get("location") as string, token, (r) => r.status === "failed");
      expect(report.errors[0]?.kind).toBe("internal_error");
      expect(report.errors[0]?.message).toContain("could not be read by the worker");
      expect(site.admitted).toEqual([]);
      expect(site.refused).toEqual([]);
      const usage = (await (
        await fetch(`${api.url}/api/usage`, { headers: { authorization: `Bearer ${token}` } })
      ).json()) as { used: number; in_progress: number };
      expect([usage.used, usage.in_progress]).toEqual([0, 0]);
      expect((await db.sql`select 1 from site_auth_secrets`).length).toBe(0);
      expect(worker.stdout()).toContain("site credentials could not be opened");
      expect(worker.stdout()).toContain("SITE_AUTH_KEY differs between processes");
      expect(found(`${api.stdout()}${worker.stdout()}${await dumpDatabase(db.sql)}`, secretForms(secrets))).toEqual([]);
    } finally {
      await worker.stop();
      await api.stop();
      site.stop();
      other.stop();
      await db.destroy();
    }
  }, 90_000);
});

describe.skipIf(!HAS_WORDPRESS)("the real WordPress fixture as a protected staging site", () => {
  test("is analyzed as fully through the protection as without it", async () => {
    const service = await startTestService();
    const secrets = newSecrets();
    const proxy = startProtectedProxy(secrets, WORDPRESS_URL);
    try {
      const { token } = await service.token(undefined, "business");
      const open = await service.call<Report>("POST", "/api/generate-report", { token, body: { url: WORDPRESS_URL } });
      const protectedReport = await service.call<Report>("POST", "/api/generate-report", {
        token,
        body: { url: proxy.url, site_auth: siteAuthOf(secrets) },
      });
      expect(open.status).toBe(201);
      expect(protectedReport.status).toBe(201);
      expect(proxy.refused).toEqual([]);
      const facts = (report: Report) => ({
        wordpress: report.wordpress?.version,
        theme: report.theme?.slug,
        plugins: report.plugins.map((plugin) => `${plugin.slug} ${plugin.version}`).sort(),
        failing: report.checks
          .filter((check) => check.status === "fail")
          .map((check) => check.id)
          .sort(),
      });
      expect(facts(protectedReport.body).wordpress).toBe("6.1.9");
      expect(facts(protectedReport.body)).toEqual(facts(open.body));
      expect(found(JSON.stringify(protectedReport.body), secretForms(secrets))).toEqual([]);
    } finally {
      proxy.stop();
      await service.stop();
    }
  }, 90_000);
});
