/**
 * `wpreport check` (action/dist/cli.js, the real process) on a password-protected site: the
 * `--http-*` flags and the WPREPORT_HTTP_* variables open it (every request the analyzer made to
 * it was admitted), a refused header is a usage error (exit 2) before any request, and no secret
 * is printed in any case.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import path from "node:path";
import { found } from "../helpers/db-dump.ts";
import { runProcess } from "../helpers/processes.ts";
import {
  newSecrets,
  type ProtectedSite,
  type Recorder,
  secretForms,
  startProtectedBlog,
  startRecorder,
} from "../helpers/protected-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

const CLI = path.resolve(import.meta.dir, "../../action/dist/cli.js");

function cli(args: string[], env: Record<string, string>) {
  return runProcess(["node", CLI, ...args], { env: { PATH: process.env.PATH ?? "", ...env } });
}

describe("wpreport check on a password-protected site", () => {
  const secrets = newSecrets();
  const forms = secretForms(secrets);
  let service: TestService;
  let other: Recorder;
  let site: ProtectedSite;
  let env: Record<string, string>;

  beforeAll(async () => {
    service = await startTestService();
    const { token } = await service.token(undefined, "business");
    env = { WPREPORT_API_URL: service.url, WPREPORT_TOKEN: token };
    other = startRecorder();
    site = startProtectedBlog(secrets, other);
  });
  afterAll(async () => {
    site.stop();
    other.stop();
    await service.stop();
  });

  test("with --http-auth, --http-header and --http-cookie: analyzed, every request admitted, nothing printed", async () => {
    const result = await cli(
      [
        "check",
        "--url",
        site.url,
        "--http-auth",
        `${secrets.username}:${secrets.password}`,
        "--http-header",
        `X-Staging-Token: ${secrets.header}`,
        "--http-cookie",
        `staging_pass=${secrets.cookie}`,
        "--format",
        "json",
      ],
      env,
    );
    expect(result.code).toBe(0);
    const { report } = JSON.parse(result.stdout) as { report: { wordpress: { detected: boolean } } };
    expect(report.wordpress.detected).toBe(true);
    expect(site.refused).toEqual([]);
    expect(found(result.stdout + result.stderr, forms)).toEqual([]);
  }, 60_000);

  test("with WPREPORT_HTTP_AUTH, WPREPORT_HTTP_HEADERS and WPREPORT_HTTP_COOKIES: the same", async () => {
    site.admitted.length = 0;
    const result = await cli(["check", "--url", site.url], {
      ...env,
      WPREPORT_HTTP_AUTH: `${secrets.username}:${secrets.password}`,
      WPREPORT_HTTP_HEADERS: `X-Staging-Token: ${secrets.header}\n`,
      WPREPORT_HTTP_COOKIES: `staging_pass=${secrets.cookie}; seen=1`,
    });
    expect(result.code).toBe(0);
    expect(site.refused).toEqual([]);
    expect(site.admitted.length).toBeGreaterThan(10);
    expect(found(result.stdout + result.stderr, forms)).toEqual([]);
  }, 60_000);

  test("a header that is not allowed is a usage error (exit 2) before any request, named without its value", async () => {
    const usage = await service.call<{ used: number }>("GET", "/api/usage", { token: env.WPREPORT_TOKEN });
    const result = await cli(["check", "--url", site.url, "--http-header", `X-Real-IP: ${secrets.header}`], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--http-header: X-Real-IP is not a header site credentials may set");
    expect(found(result.stdout + result.stderr, forms)).toEqual([]);
    const after = await service.call<{ used: number }>("GET", "/api/usage", { token: env.WPREPORT_TOKEN });
    expect(after.body.used).toBe(usage.body.used);
  }, 30_000);
});
