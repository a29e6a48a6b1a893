/**
 * The admin CLI and `npm start` as a user runs them: real subprocesses on the embedded
 * default (with and without a running server holding the database) and on PostgreSQL.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { isWellFormedToken } from "../../server/access/token-format.ts";
import { runCommand, UsageError } from "../../server/cli/commands.ts";
import { createPostgresDatabase, preparePgliteDataDir } from "../helpers/databases.ts";
import { HAS_POSTGRES } from "../helpers/env.ts";
import { runCli, type ServerProcess, startServerProcess } from "../helpers/processes.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { WebSession } from "../helpers/web-session.ts";

const lastLine = (text: string) => text.trimEnd().split("\n").at(-1) ?? "";

describe("admin CLI on the embedded default", () => {
  const dirs: string[] = [];
  let server: ServerProcess | undefined;
  afterAll(async () => {
    await server?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  test("--help lists every command", async () => {
    const { code, stdout } = await runCli(["--help"], {});
    expect(code).toBe(0);
    for (const command of [
      "token create",
      "token list",
      "token revoke",
      "account show",
      "plan set",
      "account rate-limit",
    ]) {
      expect(stdout).toContain(command);
    }
  });

  test("without a server: token create prints the token alone on the last line of stdout", async () => {
    const dataDir = await preparePgliteDataDir();
    dirs.push(dataDir);
    const created = await runCli(
      ["token", "create", "--email", "Dev@Example.com", "--plan", "starter", "--name", "ci"],
      {
        DATA_DIR: dataDir,
      },
    );
    expect(created.code).toBe(0);
    expect(created.stdout.trim().split("\n")).toHaveLength(1);
    const token = lastLine(created.stdout);
    expect(isWellFormedToken(token)).toBe(true);
    expect(created.stderr).toContain("Created account dev@example.com");
    expect(created.stderr).not.toContain(token);

    const list = await runCli(["token", "list", "--email", "dev@example.com", "--json"], { DATA_DIR: dataDir });
    const tokens = JSON.parse(list.stdout) as { id: string; name: string; prefix: string }[];
    expect(tokens).toHaveLength(1);
    expect(tokens[0]?.name).toBe("ci");
    expect(tokens[0]?.prefix).toBe(token.slice(0, 10));
    expect(list.stdout).not.toContain(token);
  });

  test("while the server runs: the CLI reaches its database and the new token works at once", async () => {
    const dataDir = await preparePgliteDataDir();
    dirs.push(dataDir);
    server = await startServerProcess({ DATA_DIR: dataDir });
    // No account yet: the start command explains how to get the first token.
    const banner = "npm run --silent admin -- token create --email you@example.com";
    for (let i = 0; i < 40 && !server.stderr().includes(banner); i++) await Bun.sleep(50);
    expect(server.stderr()).toContain(banner);

    const created = await runCli(["token", "create", "--email", "ops@example.com", "--plan", "business"], {
      DATA_DIR: dataDir,
    });
    expect(created.code).toBe(0);
    const token = lastLine(created.stdout);
    const usage = await fetch(`${server.url}/api/usage`, { headers: { authorization: `Bearer ${token}` } });
    expect(usage.status).toBe(200);
    expect(((await usage.json()) as { plan: { id: string } }).plan.id).toBe("business");

    expect(
      (await runCli(["plan", "set", "--email", "ops@example.com", "--plan", "enterprise"], { DATA_DIR: dataDir })).code,
    ).toBe(0);
    const after = await fetch(`${server.url}/api/usage`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await after.json()) as { quota: number }).quota).toBe(2000);

    const shown = await runCli(["account", "show", "--email", "ops@example.com", "--json"], { DATA_DIR: dataDir });
    expect(JSON.parse(shown.stdout)).toMatchObject({ plan: "enterprise", quota: 2000, used: 0, remaining: 2000 });

    const tokens = JSON.parse(
      (await runCli(["token", "list", "--email", "ops@example.com", "--json"], { DATA_DIR: dataDir })).stdout,
    );
    const revoked = await runCli(["token", "revoke", tokens[0].id], { DATA_DIR: dataDir });
    expect(revoked.code).toBe(0);
    const denied = await fetch(`${server.url}/api/usage`, { headers: { authorization: `Bearer ${token}` } });
    expect(denied.status).toBe(401);

    // A second server on the same DATA_DIR is refused with a clear message.
    await expect(startServerProcess({ DATA_DIR: dataDir })).rejects.toThrow("already using the embedded database");
    expect(await server.stop("SIGTERM")).toBe(0);
    server = undefined;
  });

  test("usage errors exit 2 with a message", async () => {
    const dataDir = await preparePgliteDataDir();
    dirs.push(dataDir);
    const bad = await runCli(["token", "create", "--email", "not-an-email"], { DATA_DIR: dataDir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--email is not a valid email address");
    const plan = await runCli(["token", "create", "--email", "a@example.com", "--plan", "gold"], { DATA_DIR: dataDir });
    expect(plan.code).toBe(2);
    expect(plan.stderr).toContain('unknown plan "gold"');
    const unknown = await runCli(["frobnicate"], { DATA_DIR: dataDir });
    expect(unknown.code).toBe(2);
  });
});

describe("configuration errors", () => {
  test("the server refuses to start and lists every bad value", async () => {
    const child = Bun.spawn([process.execPath, "server/start/main.ts"], {
      cwd: `${import.meta.dir}/../..`,
      env: {
        ...process.env,
        PORT: "http",
        REDIS_URL: "localhost:6379",
        TARGET_ALLOWLIST: "10.0.0.0/99",
        LOG_LEVEL: "loud",
      },
      stderr: "pipe",
    });
    const stderr = await new Response(child.stderr).text();
    expect(await child.exited).toBe(2);
    expect(stderr).toContain('PORT must be a whole number between 0 and 65535, got "http"');
    expect(stderr).toContain("REDIS_URL must start with redis: or rediss:");
    expect(stderr).toContain('TARGET_ALLOWLIST entry "10.0.0.0/99" is not a valid CIDR range');
    expect(stderr).toContain('LOG_LEVEL must be one of debug, info, warn, error, silent, got "loud"');
  });
});

describe.skipIf(!HAS_POSTGRES)("admin CLI on PostgreSQL", () => {
  test("token create and use against a server on the same DATABASE_URL", async () => {
    const db = await createPostgresDatabase();
    const server = await startServerProcess({ DATABASE_URL: db.url as string });
    try {
      const created = await runCli(["token", "create", "--email", "pg@example.com"], {
        DATABASE_URL: db.url as string,
      });
      expect(created.code).toBe(0);
      const response = await fetch(`${server.url}/api/usage`, {
        headers: { authorization: `Bearer ${lastLine(created.stdout)}` },
      });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { plan: { id: string } }).plan.id).toBe("free");
    } finally {
      await server.stop();
      await db.destroy();
    }
  });
});

describe("admin CLI: account password", () => {
  let service: TestService | undefined;
  afterAll(async () => {
    await service?.stop();
  });

  test("an account the CLI made gets a web password from standard input; weak or missing ones are refused", async () => {
    service = await startTestService();
    const sql = service.running.services.db.sql;
    const lines: string[] = [];
    const io = (input?: string) => ({
      out: (line: string) => lines.push(line),
      err: (line: string) => lines.push(line),
      ...(input === undefined ? {} : { readLine: async () => input }),
    });
    await runCommand(sql, ["account", "create", "--email", "ops@example.com", "--plan", "starter"], io());
    // No password yet: the web refuses the log-in, and sign-up refuses the taken email.
    await expect(WebSession.login(service.url, "ops@example.com", "a-long-enough-password")).rejects.toThrow();

    await expect(runCommand(sql, ["account", "password", "--email", "ops@example.com"], io())).rejects.toThrow(
      UsageError,
    );
    await expect(runCommand(sql, ["account", "password", "--email", "ops@example.com"], io("short"))).rejects.toThrow(
      "Use at least",
    );
    await runCommand(sql, ["account", "password", "--email", "ops@example.com"], io("a-long-enough-password"));
    expect(lines.at(-1)).toContain("Set the password of ops@example.com");
    expect(lines.join("\n")).not.toContain("a-long-enough-password");
    const web = await WebSession.login(service.url, "ops@example.com", "a-long-enough-password");
    expect((await web.get("/dashboard")).status).toBe(200);

    // A reset ends the sessions that were open.
    await runCommand(sql, ["account", "password", "--email", "ops@example.com"], io("another-long-password"));
    const after = await web.get("/dashboard");
    expect(after.status).toBe(303);
    expect(after.headers.get("location")).toStartWith("/login");
    await WebSession.login(service.url, "ops@example.com", "another-long-password");
  });
});
