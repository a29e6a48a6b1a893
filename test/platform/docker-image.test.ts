/**
 * The Docker image, checked without Docker (no daemon runs here): its file set is rebuilt from
 * the Dockerfile's COPY lines and .dockerignore in temporary folders, its RUN commands run there
 * (npm from its offline cache, which CI's `npm ci` fills), then its CMD starts the service the way
 * `docker run` would, its HEALTHCHECK must pass, a page must render, a site must be analyzed, and
 * the service must stop cleanly. docker-compose.yml's API and worker roles then run from the same
 * folder with the compose file's environment, each passing the healthcheck compose gives it.
 *
 * This is what keeps the two failures the image once had from coming back: an install that needs
 * a file the COPY lines do not bring (`Workspace not found "test/api/openapi-client"`), and a
 * server that needs a file the image lacks (`Cannot find module 'react/jsx-runtime'` without
 * tsconfig.json) — both fail here, as in `docker build` / `docker run`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os, { tmpdir } from "node:os";
import path from "node:path";
import { loadConfig } from "../../server/start/config.ts";
import { createPostgresDatabase, type TestDatabase } from "../helpers/databases.ts";
import { type BuiltImage, buildImage, imageEnv } from "../helpers/docker-image.ts";
import { HAS_POSTGRES, HAS_REDIS, REDIS_URL } from "../helpers/env.ts";
import { ROOT, runProcess } from "../helpers/processes.ts";
import { freePort } from "../helpers/service.ts";
import { startBlog, type TestSite } from "../helpers/sites.ts";

const NPM_CACHE = process.env.npm_config_cache ?? path.join(os.homedir(), ".npm");

/** A process started from the image folder, as `docker run` starts the CMD. */
interface Container {
  url: string;
  port: number;
  output(): string;
  stop(): Promise<number>;
}

/**
 * A value of docker-compose.yml as compose hands it over: `$$` is a `$`, `${NAME:-default}` and
 * `${NAME}` come from the environment compose runs in (here: none set, so the default or "").
 */
function composeValue(raw: string): string {
  return raw.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}/g, (match, _name, fallback) =>
    match === "$$" ? "$" : (fallback ?? ""),
  );
}

async function startContainer(image: BuiltImage, env: Record<string, string>, command = image.cmd): Promise<Container> {
  const port = await freePort();
  const child = Bun.spawn(command, {
    cwd: image.appDir,
    // `docker run -e …`: the image's ENV, then what the run sets. Nothing leaks in from the test's environment.
    env: imageEnv(image.final, { HOST: "127.0.0.1", LOG_LEVEL: "info", ...env, PORT: String(port) }),
    stdout: "pipe",
    stderr: "pipe",
  });
  let text = "";
  for (const stream of [child.stdout, child.stderr]) {
    void (async () => {
      for await (const chunk of stream) text += new TextDecoder().decode(chunk);
    })();
  }
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`the image's CMD exited with ${child.exitCode}:\n${text.slice(-4000)}`);
    const up = await fetch(`${url}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`the image's CMD did not answer /healthz within 60 s:\n${text.slice(-4000)}`);
    }
    await Bun.sleep(100);
  }
  return {
    url,
    port,
    output: () => text,
    async stop() {
      child.kill("SIGTERM");
      return child.exited;
    },
  };
}

/** Runs a command inside the image folder with the container's environment (`docker exec`). */
function exec(image: BuiltImage, container: Container, command: string[], env: Record<string, string> = {}) {
  return runProcess(command, {
    cwd: image.appDir,
    env: imageEnv(image.final, { LOG_LEVEL: "silent", ...env, PORT: String(container.port) }),
  });
}

describe("the Docker image, rebuilt from the Dockerfile", () => {
  let work: string;
  let image: BuiltImage;
  let site: TestSite;

  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), "wpreport-image-"));
    site = startBlog();
    image = await buildImage(await Bun.file(path.join(ROOT, "Dockerfile")).text(), {
      context: ROOT,
      into: work,
      // npm installs from its cache only: a test never downloads (CI's `npm ci` filled the cache).
      runEnv: { npm_config_offline: "true", npm_config_cache: NPM_CACHE, npm_config_update_notifier: "false" },
      run: async (command, options) => {
        const result = await runProcess(command, options);
        return { code: result.code, output: `${result.stdout}\n${result.stderr}` };
      },
    });
  }, 300_000);

  afterAll(() => {
    site?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test("holds what the server runs on, and nothing of the checkout besides", () => {
    const app = image.appDir;
    for (const file of [
      "package.json",
      "tsconfig.json",
      "server/start/main.ts",
      "shared/report.ts",
      "node_modules/elysia",
    ]) {
      expect(existsSync(path.join(app, file))).toBe(true);
    }
    // postgres.js with our fix, applied in the dependency stage (patches/, patch-package).
    expect(readFileSync(path.join(app, "node_modules/postgres/src/connection.js"), "utf8")).toContain(
      "wpreport patch: the row counter too",
    );
    // The runtime image's own Bun runs it: the npm copy (100 MB) is not shipped.
    expect(existsSync(path.join(app, "node_modules/bun"))).toBe(false);
    expect(existsSync(path.join(app, "node_modules/@oven"))).toBe(false);
    // No dev dependencies, no tests, no local database or secrets from the build context.
    expect(existsSync(path.join(app, "node_modules/@biomejs"))).toBe(false);
    expect(existsSync(path.join(app, "node_modules/@redocly"))).toBe(false);
    // playwright-core is a runtime dependency (client reports as PDF through a configured
    // Chromium); the image has no Chromium, so it answers HTML (docs/portfolio.md).
    for (const absent of ["test", "docs", "bench", "action", ".git", ".env", "README.md"]) {
      expect(existsSync(path.join(app, absent))).toBe(false);
    }
    expect(readdirSync(path.join(app, "data"))).toEqual([]);
    expect(image.volumes).toContain(path.posix.join(image.final.workdir, "data"));
    expect(image.user).toBe("bun");
    expect(image.exposed).toEqual([Number(image.final.env.PORT)]);
  });

  test("its Bun is the project's Bun (same minor version)", async () => {
    const manifest = (await Bun.file(path.join(ROOT, "package.json")).json()) as {
      dependencies: Record<string, string>;
    };
    const projectMinor = manifest.dependencies.bun?.replace(/^\D*/, "").split(".").slice(0, 2).join(".");
    const runtime = image.final.image;
    expect(runtime.startsWith("oven/bun:")).toBe(true);
    expect(runtime.split(":")[1]?.split("-")[0]).toBe(projectMinor);
  });

  test("docker run: starts on the embedded database, passes its HEALTHCHECK, serves pages, analyses a site, stops cleanly", async () => {
    const allowed = new URL(site.url);
    const container = await startContainer(image, { TARGET_ALLOWLIST: `127.0.0.1:${allowed.port}` });
    try {
      expect(image.healthcheck).toBeDefined();
      const health = await exec(image, container, image.healthcheck ?? []);
      expect(health.code).toBe(0);
      // The web pages are Preact JSX, compiled by Bun at run time with tsconfig.json's settings.
      const landing = await fetch(`${container.url}/`);
      expect(landing.status).toBe(200);
      expect(await landing.text()).toContain("<!doctype html>");
      // `docker exec … bun server/cli/main.ts token create` (docker-compose.yml's instructions).
      const created = await exec(image, container, [
        "bun",
        "server/cli/main.ts",
        "token",
        "create",
        "--email",
        "ops@example.com",
        "--plan",
        "starter",
      ]);
      expect(created.stderr).not.toContain("rror");
      expect(created.code).toBe(0);
      const token = created.stdout.trim().split("\n").at(-1) ?? "";
      const response = await fetch(`${container.url}/api/generate-report`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ url: site.url }),
      });
      const report = (await response.json()) as { status: string; wordpress: { detected: boolean } };
      expect(response.status).toBe(201);
      expect(report.status).toBe("completed");
      expect(report.wordpress.detected).toBe(true);
    } finally {
      expect(await container.stop()).toBe(0);
    }
    expect(container.output()).not.toContain("Cannot find module");
  }, 120_000);

  describe.skipIf(!HAS_POSTGRES || !HAS_REDIS)("docker-compose.yml's roles, run from the image", () => {
    interface ComposeService {
      build?: string;
      image?: string;
      environment?: Record<string, string>;
      healthcheck?: { test: string[] };
      depends_on?: Record<string, { condition: string }> | string[];
    }
    let compose: { services: Record<string, ComposeService>; configs?: Record<string, { content: string }> };
    let db: TestDatabase;

    beforeAll(async () => {
      compose = Bun.YAML.parse(await Bun.file(path.join(ROOT, "docker-compose.yml")).text()) as typeof compose;
      db = await createPostgresDatabase();
    });
    afterAll(async () => {
      await db?.destroy();
    });

    const built = () =>
      Object.entries(compose.services)
        .filter(([, service]) => service.build === ".")
        .map(([name, service]): [string, ComposeService] => [
          name,
          {
            ...service,
            environment: Object.fromEntries(
              Object.entries(service.environment ?? {}).map(([key, value]) => [key, composeValue(String(value))]),
            ),
            ...(service.healthcheck ? { healthcheck: { test: service.healthcheck.test.map(composeValue) } } : {}),
          },
        ]);

    test("every service built from the image has a configuration the service accepts, and a role", () => {
      expect(built().length).toBeGreaterThanOrEqual(4);
      const roles = new Set<string>();
      for (const [name, service] of built()) {
        const env = service.environment ?? {};
        expect(() => loadConfig(env, "/app"), name).not.toThrow();
        roles.add(loadConfig(env, "/app").platform.role);
        expect(loadConfig(env, "/app").platform.port, name).toBe(image.exposed[0] as number);
      }
      expect([...roles].sort()).toEqual(["api", "worker"]);
      // Site credentials sealed by an API process must open in a worker: one key for all.
      const raw = Bun.YAML.parse(readFileSync(path.join(ROOT, "docker-compose.yml"), "utf8")) as typeof compose;
      const keys = new Set(built().map(([name]) => raw.services[name]?.environment?.SITE_AUTH_KEY));
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a compose interpolation, not a JS template
      expect([...keys]).toEqual(["${SITE_AUTH_KEY:-}"]);
    });

    test("the load balancer sends to every API service on the image's port; dependencies have healthchecks", () => {
      const apis = built().filter(
        ([, service]) => loadConfig(service.environment ?? {}, "/app").platform.role === "api",
      );
      const nginx = compose.configs?.nginx?.content ?? "";
      for (const [name] of apis) expect(nginx).toContain(`server ${name}:${image.exposed[0]}`);
      for (const [name, service] of Object.entries(compose.services)) {
        const needs = service.depends_on && !Array.isArray(service.depends_on) ? service.depends_on : {};
        for (const [dependency, { condition }] of Object.entries(needs)) {
          if (condition === "service_healthy") {
            expect(compose.services[dependency]?.healthcheck, `${name} waits for ${dependency}`).toBeDefined();
          }
        }
      }
    });

    test("an API and a worker from the image, on PostgreSQL and Redis, pass their healthchecks and make a report", async () => {
      const [apiName, api] =
        built().find(([, s]) => loadConfig(s.environment ?? {}, "/app").platform.role === "api") ?? [];
      const [workerName, worker] =
        built().find(([, s]) => loadConfig(s.environment ?? {}, "/app").platform.role === "worker") ?? [];
      expect(apiName && workerName).toBeTruthy();
      // The compose environment as is, but the hosts of this machine (compose's `postgres`/`redis`).
      const local = (service: ComposeService | undefined) => ({
        ...service?.environment,
        DATABASE_URL: db.url as string,
        REDIS_URL,
        TARGET_ALLOWLIST: `127.0.0.1:${new URL(site.url).port}`,
        TRUST_PROXY: "0",
      });
      const apiContainer = await startContainer(image, local(api));
      const workerContainer = await startContainer(image, local(worker));
      try {
        for (const [container, service] of [
          [apiContainer, api],
          [workerContainer, worker],
        ] as const) {
          // Compose's own test (["CMD", …] or ["CMD-SHELL", "…"]), else the image's HEALTHCHECK.
          const own = service?.healthcheck?.test;
          const command = !own
            ? (image.healthcheck ?? [])
            : own[0] === "CMD"
              ? own.slice(1)
              : ["sh", "-c", own.slice(1).join(" ")];
          const result = await exec(image, container, command);
          expect(result.code, `${service === api ? apiName : workerName}: ${result.stderr}`).toBe(0);
        }
        const created = await exec(
          image,
          apiContainer,
          ["bun", "server/cli/main.ts", "token", "create", "--email", "compose@example.com"],
          { DATABASE_URL: db.url as string },
        );
        expect(created.code).toBe(0);
        const token = created.stdout.trim().split("\n").at(-1) ?? "";
        const response = await fetch(`${apiContainer.url}/api/generate-report`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ url: site.url }),
        });
        expect(response.status).toBe(201);
        expect(((await response.json()) as { status: string }).status).toBe("completed");
      } finally {
        await apiContainer.stop();
        await workerContainer.stop();
      }
    }, 120_000);
  });
});
