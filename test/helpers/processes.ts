/** Running the real entry points (npm start, the admin CLI) as subprocesses. */
import path from "node:path";
import type { Subprocess } from "bun";
import { freePort } from "./service.ts";

export const ROOT = path.resolve(import.meta.dir, "../..");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion and collects its exit code and output. */
export async function runProcess(
  cmd: string[],
  options: { cwd?: string; env: Record<string, string | undefined> },
): Promise<CliResult> {
  const child = Bun.spawn(cmd, { cwd: options.cwd, env: options.env, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, stdout, stderr };
}

/**
 * The first line a child process writes to `stream` (a helper site announcing its port), or an
 * error naming `what` when it ends first. The rest of the stream is left unread.
 */
export async function firstLine(stream: ReadableStream<Uint8Array>, what: string): Promise<string> {
  const reader = stream.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${what} did not start`);
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return text.slice(0, text.indexOf("\n"));
}

export function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  return runProcess([process.execPath, "server/cli/main.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: "silent", ...env },
  });
}

export interface ServerProcess {
  url: string;
  child: Subprocess<"ignore", "pipe", "pipe">;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Everything written to stdout (the JSON log lines) so far. */
  stdout(): string;
  stop(signal?: NodeJS.Signals): Promise<number>;
}

/** Starts `bun server/start/main.ts` and waits until /healthz answers. */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  const child = Bun.spawn([process.execPath, "server/start/main.ts"], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      TARGET_ALLOWLIST: "127.0.0.1",
      LOG_LEVEL: "warn",
      ...env,
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  let errText = "";
  void (async () => {
    for await (const chunk of child.stderr) errText += new TextDecoder().decode(chunk);
  })();
  let outText = "";
  void (async () => {
    // Drained so the child never blocks on a full pipe, and kept for tests that read the log.
    for await (const chunk of child.stdout) outText += new TextDecoder().decode(chunk);
  })();
  const url = `http://127.0.0.1:${port}`;
  // Generous: several processes starting at once on a loaded 2-core machine (each runs the
  // migrations' check and pg-boss's start under a lock) took over 20 s.
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${errText}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`server did not start: ${errText}`);
    }
    await Bun.sleep(50);
  }
  return {
    url,
    child,
    stderr: () => errText,
    stdout: () => outText,
    async stop(signal = "SIGTERM") {
      child.kill(signal);
      return child.exited;
    },
  };
}
