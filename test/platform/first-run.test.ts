/**
 * First-run friendliness, through the real entry points: `npm start`'s banner gives a token
 * command that works as printed (a non-default DATA_DIR included), and a local URL refused by
 * the address policy names its reason to the caller while the TARGET_ALLOWLIST hint goes to
 * the operator's log only.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadConfig } from "../../server/start/config.ts";
import { cliEnvironmentFor, firstRunBanner, shellWord } from "../../server/start/start-banner.ts";
import { ROOT, runProcess, type ServerProcess, startServerProcess } from "../helpers/processes.ts";

/**
 * The user's project folder, for running the banner's commands "in this folder": the checkout's
 * files by symbolic link, but a ./data of its own. The checkout's own ./data may hold the database
 * of a service the user started from the README (a running one, or a stopped one's owner.json):
 * the test neither reads nor touches it.
 */
function projectFolder(parent: string): string {
  const folder = path.join(parent, "project");
  mkdirSync(folder);
  for (const entry of ["package.json", "node_modules", "server", "shared", "tsconfig.json", "bunfig.toml"]) {
    symlinkSync(path.join(ROOT, entry), path.join(folder, entry));
  }
  return folder;
}

describe("npm start on a non-default DATA_DIR", () => {
  // A space and a quote in the path: the printed command must survive the shell as printed.
  const parent = mkdtempSync(path.join(tmpdir(), "wpreport first run "));
  const dataDir = path.join(parent, "it's data");
  const project = projectFolder(parent);
  let server: ServerProcess;

  beforeAll(async () => {
    server = await startServerProcess({ DATA_DIR: dataDir, TARGET_ALLOWLIST: "", LOG_LEVEL: "info" });
    const deadline = Date.now() + 10_000;
    while (!server.stderr().includes("Then make your first call") && Date.now() < deadline) await Bun.sleep(50);
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(parent, { recursive: true, force: true });
  });

  test("the banner's token command, run as printed, gives a token this server accepts", async () => {
    const banner = server.stderr();
    const line = banner.split("\n").find((text) => text.includes("token create"));
    expect(line).toBeDefined();
    expect(line).toContain(`DATA_DIR=${shellWord(dataDir)} `);
    const command = (line as string).trim().replace(/^TOKEN=\$\((.*)\)$/, "$1");
    // The user's shell, from the project folder, with no DATA_DIR of its own.
    const env: Record<string, string | undefined> = { ...process.env, DATA_DIR: undefined, LOG_LEVEL: "silent" };
    const result = await runProcess(["bash", "-c", command], { cwd: project, env });
    expect(result.code).toBe(0);
    const token = result.stdout.trim().split("\n").at(-1) ?? "";
    expect(token).toStartWith("wpr_");
    const usage = await fetch(`${server.url}/api/usage`, { headers: { authorization: `Bearer ${token}` } });
    expect(usage.status).toBe(200);
    // And no second database was made where the CLI would look by default.
    expect(await Bun.file(path.join(project, "data", "owner.json")).exists()).toBe(false);
  });

  test("the banner says how to let a local site through (TARGET_ALLOWLIST), before the first 422", () => {
    const banner = server.stderr();
    expect(banner).toContain("TARGET_ALLOWLIST=localhost:8080,127.0.0.1:8080 npm start");
    // The example is a value the service accepts.
    expect(loadConfig({ TARGET_ALLOWLIST: "localhost:8080,127.0.0.1:8080" }).reports.targetAllowlist).toHaveLength(2);
    // Once set, the banner lists what is allowed instead.
    const allowed = firstRunBanner({
      platform: { dataDir, publicBaseUrl: server.url },
      reports: { targetAllowlist: ["127.0.0.1:8088"] },
    });
    expect(allowed).toContain("(TARGET_ALLOWLIST): 127.0.0.1:8088");
    expect(allowed).not.toContain("npm start");
  });

  test("a localhost URL is refused with its reason; the TARGET_ALLOWLIST hint is in the log only", async () => {
    const command = `${cliEnvironmentFor({ dataDir })}npm run --silent admin -- token create --email local@example.com`;
    const created = await runProcess(["bash", "-c", command], {
      cwd: project,
      env: { ...process.env, DATA_DIR: undefined, LOG_LEVEL: "silent" },
    });
    const token = created.stdout.trim().split("\n").at(-1) ?? "";
    for (const url of ["http://localhost:8088/", "http://127.0.0.1:8088/"]) {
      const response = await fetch(`${server.url}/api/generate-report`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ url }),
      });
      expect(response.status).toBe(422);
      const problem = (await response.json()) as { code: string; detail: string };
      expect(problem.code).toBe("url_not_allowed");
      expect(problem.detail).toMatch(/loopback/);
      // How the policy is configured is the operator's business, not the caller's.
      expect(JSON.stringify(problem)).not.toContain("TARGET_ALLOWLIST");
    }
    const hints = server
      .stdout()
      .split("\n")
      .filter((line) => line.includes("target refused by the address policy"));
    expect(hints.length).toBe(2);
    expect(hints[0]).toContain("TARGET_ALLOWLIST");
  });
});
