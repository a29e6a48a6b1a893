/**
 * Real software serving sites that are not WordPress, on 127.0.0.1:
 *
 * - `startNginxStatic`: Debian's nginx serving test/analyzer/not-wordpress/static/ (a small blog built
 *   with Hugo: plain files), with gzip and `sub_filter` writing the origin into the page,
 *   robots.txt and sitemap (`{{origin}}`), as a real static host would serve them.
 * - `startPhpApp`: Debian's php-cli built-in server running test/analyzer/not-wordpress/php-app/ (a
 *   small plain-PHP app with a session, a front controller and its own 404s).
 *
 * Used by test/analyzer/not-wordpress.test.ts, and to capture the saved artifacts on fixed
 * ports (so that captured URLs stay the same between captures):
 *
 *   bun test/analyzer/not-wordpress/servers.ts nginx 8297 &
 *   bun scripts/capture-artifacts.ts http://127.0.0.1:8297/ test/analyzer/artifacts/not-wp-hugo-nginx.json
 *   bun test/analyzer/not-wordpress/servers.ts php 8298 &
 *   bun scripts/capture-artifacts.ts http://127.0.0.1:8298/ test/analyzer/artifacts/not-wp-php-app.json
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Subprocess } from "bun";
import { freePort } from "../../helpers/service.ts";

export const NOT_WORDPRESS_DIR = import.meta.dir;

export interface RealServer {
  /** Origin with a trailing slash. */
  url: string;
  /** What runs it, e.g. "nginx/1.22.1". */
  software: string;
  stop(): Promise<void>;
}

/** Waits until the server answers on `url` (any status), or throws with its output. */
async function waitUntilUp(url: string, child: Subprocess, output: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}: ${output()}`);
    try {
      await fetch(url, { signal: AbortSignal.timeout(1_000) });
      return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`did not start: ${output()}`);
    }
    await Bun.sleep(50);
  }
}

function collect(child: Subprocess<"ignore", "pipe", "pipe">): () => string {
  let text = "";
  for (const stream of [child.stdout, child.stderr]) {
    void (async () => {
      for await (const chunk of stream) text += new TextDecoder().decode(chunk);
    })();
  }
  return () => text;
}

async function stopChild(child: Subprocess): Promise<void> {
  if (child.exitCode === null) child.kill("SIGTERM");
  await child.exited;
}

/** nginx (one process, no daemon) serving the static site from a throw-away prefix. */
export async function startNginxStatic(port?: number): Promise<RealServer> {
  port ??= await freePort();
  const prefix = mkdtempSync(path.join(tmpdir(), "wpreport-nginx-"));
  for (const dir of ["logs", "temp"]) mkdirSync(path.join(prefix, dir));
  const root = path.join(NOT_WORDPRESS_DIR, "static");
  const config = `
daemon off;
master_process off;
worker_processes 1;
pid ${prefix}/nginx.pid;
error_log ${prefix}/logs/error.log warn;
events { worker_connections 64; }
http {
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  access_log off;
  client_body_temp_path ${prefix}/temp/body;
  proxy_temp_path ${prefix}/temp/proxy;
  fastcgi_temp_path ${prefix}/temp/fastcgi;
  uwsgi_temp_path ${prefix}/temp/uwsgi;
  scgi_temp_path ${prefix}/temp/scgi;
  sendfile on;
  gzip on;
  gzip_types text/css application/javascript image/svg+xml application/xml text/plain;
  server {
    listen 127.0.0.1:${port};
    root ${root};
    index index.html;
    sub_filter '{{origin}}' '$scheme://$http_host';
    sub_filter_once off;
    sub_filter_types text/plain application/xml;
    location / { try_files $uri $uri/ =404; }
    location ~* \\.(css|svg)$ { expires 30d; }
  }
}
`;
  const file = path.join(prefix, "nginx.conf");
  writeFileSync(file, config);
  const child = Bun.spawn(["nginx", "-p", prefix, "-c", file], { stdout: "pipe", stderr: "pipe" });
  const output = collect(child);
  const url = `http://127.0.0.1:${port}/`;
  await waitUntilUp(url, child, output);
  const version = await new Response(Bun.spawn(["nginx", "-v"], { stderr: "pipe" }).stderr).text();
  return {
    url,
    software: version.replace(/^nginx version:\s*/, "").trim(),
    stop: async () => {
      await stopChild(child);
      rmSync(prefix, { recursive: true, force: true });
    },
  };
}

/** `php -S` with the app's front controller as router script. */
export async function startPhpApp(port?: number): Promise<RealServer> {
  port ??= await freePort();
  const publicDir = path.join(NOT_WORDPRESS_DIR, "php-app", "public");
  const child = Bun.spawn(
    ["php", "-d", "expose_php=On", "-S", `127.0.0.1:${port}`, "-t", publicDir, path.join(publicDir, "index.php")],
    { stdout: "pipe", stderr: "pipe" },
  );
  const output = collect(child);
  const url = `http://127.0.0.1:${port}/`;
  await waitUntilUp(url, child, output);
  const version = (
    await new Response(Bun.spawn(["php", "-r", "echo PHP_VERSION;"], { stdout: "pipe" }).stdout).text()
  ).trim();
  return { url, software: `PHP/${version}`, stop: () => stopChild(child) };
}

if (import.meta.main) {
  const which = process.argv[2] === "php" ? startPhpApp : startNginxStatic;
  const server = await which(process.argv[3] ? Number(process.argv[3]) : undefined);
  console.log(`${server.software} serving ${server.url} — Ctrl-C to stop`);
  process.on("SIGINT", () => void server.stop().then(() => process.exit(0)));
}
