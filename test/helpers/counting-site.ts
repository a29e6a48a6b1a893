/**
 * A site that counts what reached it, for the per-target limits' tests
 * (test/platform/queue/target-*.test.ts): when each request arrived, for which host, and the
 * most analyses at once (robots.txt, held `robotsHoldMs`, marks one).
 *
 * It runs in a process of its own, as a real site would. In the test's process its clock would
 * be read only when that process's event loop — busy with the service's analyses — got round
 * to the request: a request the analyzer gave up on (a timeout) could then be noted after the
 * one that came a second later, and two requests a second apart could be counted in one
 * second. Here each arrival is noted when it reaches the site.
 */
import path from "node:path";
import { firstLine } from "./processes.ts";
import { busiestWindow } from "./request-windows.ts";

const CHILD = path.join(import.meta.dir, "counting-site.child.ts");

export interface Arrival {
  /** ms on the site's own clock */
  at: number;
  host: string;
  path: string;
}

export interface Seen {
  arrivals: Arrival[];
  /** The most robots.txt requests held at once: analyses at once. */
  maxAtOnce: number;
  /** The most requests that arrived within any one window of `ms` (all hosts, or one). */
  peakIn(ms: number, host?: string): number;
}

export interface CountingSite {
  port: number;
  /** What the site saw so far. */
  seen(): Promise<Seen>;
  stop(): Promise<void>;
}

export async function startCountingSite(
  address: string,
  options: { robotsHoldMs?: number } = {},
): Promise<CountingSite> {
  const child = Bun.spawn([process.execPath, CHILD], {
    env: { ...process.env, SITE_ADDRESS: address, ROBOTS_HOLD_MS: String(options.robotsHoldMs ?? 0) },
    stdout: "pipe",
    stderr: "inherit",
  });
  const { port, control } = JSON.parse(await firstLine(child.stdout, "the counting site")) as {
    port: number;
    control: number;
  };
  return {
    port,
    async seen() {
      const { arrivals, maxAtOnce } = (await (await fetch(`http://127.0.0.1:${control}/`)).json()) as {
        arrivals: Arrival[];
        maxAtOnce: number;
      };
      return {
        arrivals,
        maxAtOnce,
        peakIn: (ms, host) =>
          busiestWindow(
            arrivals.filter((arrival) => host === undefined || arrival.host === host).map((arrival) => arrival.at),
            ms,
          ),
      };
    },
    async stop() {
      child.kill();
      await child.exited;
    },
  };
}
