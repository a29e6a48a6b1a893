/**
 * The fault-injection suite's world: one PostgreSQL database, an API process
 * (WPREPORT_ROLE=api) and a worker process (WPREPORT_ROLE=worker) started as `npm start`
 * would, a Redis of our own on another port (the shared one on 6379 is never touched), and
 * quick loopback sites to analyze. A process the test kills is started again on the same port,
 * as a supervisor would; any other exit is recorded as a failure.
 *
 * FAULTS_SERVER_ROOT points the processes at another checkout (e.g. main) to take the
 * "before" figures with the same suite.
 */
import path from "node:path";
import type { Subprocess } from "bun";
import { TokenService } from "../../../server/access/token.service.ts";
import { AccountService } from "../../../server/accounts/account.service.ts";
import { createPostgresDatabase, type TestDatabase } from "../../helpers/databases.ts";
import { ROOT } from "../../helpers/processes.ts";
import { freePort } from "../../helpers/service.ts";
import { blogHomepage, startSite, type TestSite } from "../../helpers/sites.ts";

export const SERVER_ROOT = process.env.FAULTS_SERVER_ROOT ?? ROOT;

export type Role = "api" | "worker";

export interface ServerProcess {
  role: Role;
  port: number;
  url: string;
  child: Subprocess<"ignore", "pipe", "pipe">;
  log(): string;
}

export interface Exit {
  role: Role;
  code: number | null;
  signal: string | null;
  tail: string;
}

/** Sites whose homepage takes a moment (so that reports are in flight when a fault hits) and whose probes answer 404 at once. */
export function startQuickSites(count: number, homepageDelayMs = 400): TestSite[] {
  return Array.from({ length: count }, (_, i) => {
    let origin = "";
    const site = startSite({
      "/": async () => {
        await Bun.sleep(homepageDelayMs);
        return new Response(blogHomepage(origin, `Quick site ${i}`), {
          headers: { "content-type": "text/html; charset=UTF-8" },
        });
      },
    });
    origin = site.url.replace(/\/$/, "");
    return site;
  });
}

export class Cluster {
  readonly processes = new Map<Role, ServerProcess>();
  /** Exits that nobody asked for: each one fails the fault's test. */
  readonly unexpectedExits: Exit[] = [];
  private readonly killing = new Set<Subprocess>();

  private constructor(
    readonly db: TestDatabase,
    readonly env: Record<string, string>,
  ) {}

  static async start(env: Record<string, string>): Promise<Cluster> {
    const db = await createPostgresDatabase();
    const cluster = new Cluster(db, { DATABASE_URL: db.url as string, ...env });
    const [apiPort, workerPort] = await Promise.all([freePort(), freePort()]);
    await Promise.all([cluster.spawn("api", apiPort), cluster.spawn("worker", workerPort)]);
    return cluster;
  }

  get databaseName(): string {
    return new URL(this.db.url as string).pathname.slice(1);
  }

  get apiUrl(): string {
    return this.process("api").url;
  }

  process(role: Role): ServerProcess {
    const found = this.processes.get(role);
    if (!found) throw new Error(`no ${role} process`);
    return found;
  }

  /** Accounts with tokens, made directly in the database (the CLI's services, without a process each). */
  async tokens(count: number): Promise<string[]> {
    const accounts = new AccountService(this.db.sql);
    const tokens = new TokenService(this.db.sql);
    const made: string[] = [];
    for (let i = 0; i < count; i++) {
      const { account } = await accounts.ensure(`faults${i}@example.com`, "enterprise");
      await accounts.setRateLimitOverride(account.id, 100_000);
      made.push((await tokens.create(account.id, { name: "faults" })).token);
    }
    return made;
  }

  /** SIGKILL, as an OOM killer or a crash would: no cleanup at all. */
  async kill(role: Role): Promise<void> {
    const { child } = this.process(role);
    this.killing.add(child);
    child.kill("SIGKILL");
    await child.exited;
  }

  /** Starts the role again on its port, as a supervisor (Docker's restart policy) would. */
  async restart(role: Role): Promise<void> {
    await this.spawn(role, this.process(role).port);
  }

  async stop(): Promise<void> {
    for (const { child } of this.processes.values()) {
      this.killing.add(child);
      child.kill("SIGKILL");
    }
    await Promise.all([...this.processes.values()].map(({ child }) => child.exited));
    await this.db.destroy().catch(() => {});
  }

  private async spawn(role: Role, port: number): Promise<ServerProcess> {
    const child = Bun.spawn([process.execPath, path.join(SERVER_ROOT, "server/start/main.ts")], {
      cwd: SERVER_ROOT,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: "127.0.0.1",
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        TARGET_ALLOWLIST: "127.0.0.1",
        LOG_LEVEL: "warn",
        WPREPORT_ROLE: role,
        ...this.env,
      },
      stdout: "pipe",
      stderr: "pipe",
    });
    let text = "";
    const drain = async (stream: ReadableStream<Uint8Array>) => {
      const decoder = new TextDecoder();
      for await (const chunk of stream) text = (text + decoder.decode(chunk)).slice(-200_000);
    };
    void drain(child.stdout);
    void drain(child.stderr);
    const url = `http://127.0.0.1:${port}`;
    const server: ServerProcess = { role, port, url, child, log: () => text };
    this.processes.set(role, server);
    void child.exited.then((code) => {
      if (this.killing.has(child)) return;
      this.unexpectedExits.push({
        role,
        code,
        signal: child.signalCode === null ? null : String(child.signalCode),
        tail: text.slice(-3000),
      });
    });
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${role} exited at start (${child.exitCode}): ${text.slice(-2000)}`);
      try {
        if ((await fetch(`${url}/healthz`)).ok) return server;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`${role} did not start: ${text.slice(-2000)}`);
      await Bun.sleep(50);
    }
  }
}

/** A Redis server of the test's own, on a free port, that the test may kill. */
export class OwnRedis {
  private child: Subprocess | undefined;

  private constructor(readonly port: number) {}

  static async start(): Promise<OwnRedis> {
    const redis = new OwnRedis(await freePort());
    await redis.restart();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async restart(): Promise<void> {
    this.child = Bun.spawn(
      ["redis-server", "--bind", "127.0.0.1", "--port", String(this.port), "--save", "", "--appendonly", "no"],
      { stdout: "ignore", stderr: "ignore" },
    );
    for (let i = 0; i < 100; i++) {
      if (await reachable(this.port)) return;
      await Bun.sleep(50);
    }
    throw new Error("redis-server did not start");
  }

  async kill(): Promise<void> {
    this.child?.kill("SIGKILL");
    await this.child?.exited;
  }
}

async function reachable(port: number): Promise<boolean> {
  try {
    const socket = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } });
    socket.end();
    return true;
  } catch {
    return false;
  }
}
