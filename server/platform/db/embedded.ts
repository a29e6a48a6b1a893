/**
 * The embedded default: PGlite (PostgreSQL compiled to WASM) with its files under
 * DATA_DIR, served to postgres.js through @electric-sql/pglite-socket.
 *
 * PGlite admits one process. The process that opens it writes DATA_DIR/owner.json
 * (pid, role, where its socket listens); any other process — typically the admin CLI
 * while the server runs — reads that file and connects to the owner's socket instead of
 * opening the files a second time. The socket is a Unix socket inside DATA_DIR (mode
 * 0700), so only the same user can reach the database.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import type { Logger } from "../logger.ts";
import { SessionQueue } from "./pglite-session-queue.ts";

export interface EmbeddedDatabase {
  /** postgres.js connection options reaching the engine. */
  connection: { path: string } | { host: string; port: number };
  close(): Promise<void>;
}

interface OwnerRecord {
  pid: number;
  role: "server" | "cli";
  socket?: string;
  host?: string;
  port?: number;
}

/** Unix socket paths are limited to ~104 bytes; past that we listen on loopback TCP. */
const MAX_SOCKET_PATH = 100;
const OWNER_WAIT_MS = 15_000;

export interface EmbeddedOptions {
  /**
   * How long a connection's statement may wait for the session another connection holds (an
   * open transaction) before it fails with 55P03, as a lock wait past PostgreSQL's lock_timeout
   * does (pglite-session-queue.ts).
   */
  waitLimitMs: number;
}

export async function openEmbedded(
  dataDir: string,
  role: "server" | "cli",
  logger: Logger,
  options: EmbeddedOptions,
): Promise<EmbeddedDatabase> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const ownerFile = path.join(dataDir, "owner.json");
  const deadline = Date.now() + OWNER_WAIT_MS;

  for (;;) {
    const owner = readOwner(ownerFile);
    if (owner && isAlive(owner.pid) && owner.pid !== process.pid) {
      if (role === "cli" && owner.role === "server") {
        return { connection: connectionOf(owner), close: async () => {} };
      }
      if (role === "server" && owner.role === "server") {
        throw new Error(
          `Another wpreport server (pid ${owner.pid}) is already using the embedded database in ${dataDir}. ` +
            "Stop it, or give this one another DATA_DIR, or set DATABASE_URL to share a PostgreSQL server.",
        );
      }
      // A short-lived CLI holds it: wait for it to finish.
      if (Date.now() > deadline) {
        throw new Error(`The embedded database in ${dataDir} is held by process ${owner.pid}.`);
      }
      await Bun.sleep(100);
      continue;
    }
    if (claimOwnership(ownerFile, { pid: process.pid, role })) break;
  }

  try {
    return await startEngine(dataDir, ownerFile, role, logger, options);
  } catch (error) {
    rmSync(ownerFile, { force: true });
    throw error;
  }
}

async function startEngine(
  dataDir: string,
  ownerFile: string,
  role: "server" | "cli",
  logger: Logger,
  options: EmbeddedOptions,
): Promise<EmbeddedDatabase> {
  const started = performance.now();
  const db = await PGlite.create({ dataDir: path.join(dataDir, "pglite") });
  const socketPath = path.join(dataDir, "pglite.sock");
  const useUnixSocket = socketPath.length <= MAX_SOCKET_PATH;
  if (useUnixSocket) rmSync(socketPath, { force: true });
  const server = new PGLiteSocketServer({
    db,
    maxConnections: 32,
    ...(useUnixSocket ? { path: socketPath } : { host: "127.0.0.1", port: 0 }),
  });
  useSessionQueue(server, db, options.waitLimitMs);
  await server.start();

  let record: OwnerRecord;
  if (useUnixSocket) {
    record = { pid: process.pid, role, socket: socketPath };
  } else {
    const [host, port] = server.getServerConn().split(":");
    record = { pid: process.pid, role, host: host ?? "127.0.0.1", port: Number(port) };
  }
  writeFileSync(ownerFile, JSON.stringify(record), { mode: 0o600 });
  logger.info("embedded database ready", {
    data_dir: dataDir,
    ms: Math.round(performance.now() - started),
  });

  let closed = false;
  return {
    connection: connectionOf(record),
    async close() {
      if (closed) return;
      closed = true;
      await server.stop();
      await db.close();
      if (readOwner(ownerFile)?.pid === process.pid) rmSync(ownerFile, { force: true });
      if (useUnixSocket) rmSync(socketPath, { force: true });
    },
  };
}

/**
 * Swaps pglite-socket's message-level queue for SessionQueue (see pglite-session-queue.ts
 * for the upstream bug). The server hands its `queryQueue` to every connection handler it
 * creates, so replacing it before start() is enough. Checked at run time so an upgrade
 * that renames the field fails loudly instead of bringing the bug back.
 */
function useSessionQueue(server: PGLiteSocketServer, db: PGlite, waitLimitMs: number): void {
  const internals = server as unknown as { queryQueue?: unknown };
  if (!internals.queryQueue) {
    throw new Error("@electric-sql/pglite-socket changed: PGLiteSocketServer.queryQueue not found");
  }
  internals.queryQueue = new SessionQueue(db, { waitLimitMs });
}

function connectionOf(owner: OwnerRecord): EmbeddedDatabase["connection"] {
  if (owner.socket) return { path: owner.socket };
  return { host: owner.host ?? "127.0.0.1", port: owner.port ?? 0 };
}

function readOwner(file: string): OwnerRecord | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, "utf8")) as OwnerRecord;
  } catch {
    return undefined; // being written, or garbage from a crash: treated as no owner
  }
}

/** Atomically creates the owner file; replaces it when its process is gone. */
function claimOwnership(file: string, record: OwnerRecord): boolean {
  const current = readOwner(file);
  if (current && !isAlive(current.pid)) rmSync(file, { force: true });
  try {
    writeFileSync(file, JSON.stringify(record), { flag: "wx", mode: 0o600 });
    return true;
  } catch {
    return false;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
