/**
 * Debian's nginx as the plain reverse proxy an operator puts in front: `proxy_pass` to the
 * service and nothing else — no X-Forwarded-For, Host rewritten to the upstream's — on a free
 * loopback port, with its own prefix, pid file and logs in a temporary folder. It is the
 * setup in which every client reaches the service from 127.0.0.1 (issue 21, row 5).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Subprocess } from "bun";
import { REQUIRE_SERVICES } from "./env.ts";
import { freePort } from "./service.ts";

const NGINX = "/usr/sbin/nginx";
export const HAS_NGINX = existsSync(NGINX);
if (!HAS_NGINX && REQUIRE_SERVICES) throw new Error(`nginx is required (WPREPORT_REQUIRE_SERVICES=1) at ${NGINX}`);

export interface NginxProxy {
  /** The proxy's origin, e.g. http://127.0.0.1:41234 */
  url: string;
  stop(): Promise<void>;
}

/** Starts nginx in the foreground with a bare `proxy_pass upstream` and waits until it answers. */
export async function startBareProxy(upstream: string): Promise<NginxProxy> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "wpreport-nginx-"));
  const port = await freePort();
  const conf = `
daemon off;
master_process off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  server {
    listen 127.0.0.1:${port};
    location / { proxy_pass ${upstream.replace(/\/$/, "")}; }
  }
}
`;
  writeFileSync(path.join(dir, "nginx.conf"), conf);
  const child: Subprocess = Bun.spawn([NGINX, "-p", dir, "-c", path.join(dir, "nginx.conf")], {
    stdout: "ignore",
    stderr: "pipe",
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode}`);
    try {
      await fetch(`${url}/healthz`);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error("nginx did not start");
      await Bun.sleep(50);
    }
  }
  return {
    url,
    async stop() {
      child.kill("SIGTERM");
      await child.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
