/**
 * `intel …` commands of the admin CLI: offline imports (air-gapped operation), the sources'
 * status, and a refresh now. See docs/intel.md.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { DirectoryStore } from "../intel/directory/directory.store.ts";
import { importDirectoryFile } from "../intel/directory/directory-import.ts";
import { DirectoryRefresher } from "../intel/directory/directory-refresh.ts";
import { importIntelFile, importWordfenceFile } from "../intel/importer.ts";
import { IntelStore } from "../intel/intel.store.ts";
import { LatestVersions } from "../intel/latest-versions.ts";
import { IntelRefresher } from "../intel/refresh.ts";
import { WporgClient } from "../intel/wporg.ts";
import { createFanOutQueue, FanOutQueue } from "../monitoring/vulnerabilities/fan-out-queue.ts";
import type { Sql } from "../platform/db/database.ts";
import { silentLogger } from "../platform/logger.ts";
import { openQueueEngine } from "../platform/queue.ts";
import { SERVICE_USER_AGENT } from "../platform/version.ts";
import type { Config } from "../start/config.ts";
import type { CliIO, ParsedArgs } from "./commands.ts";
import { UsageError } from "./commands.ts";

const SOURCES = ["file", "wordfence", "names"] as const;
const TYPES = ["plugin", "theme"] as const;

export async function runIntelCommand(
  sql: Sql,
  action: string | undefined,
  args: ParsedArgs,
  io: CliIO,
  config: Config | undefined,
): Promise<void> {
  const store = new IntelStore(sql, undefined, !config?.platform.databaseUrl);
  switch (action) {
    case "import": {
      const file = args.flags.file;
      if (file === undefined) throw new UsageError("intel import needs --file <path>");
      const source = args.flags.source ?? "file";
      if (!(SOURCES as readonly string[]).includes(source)) {
        throw new UsageError(`--source must be one of ${SOURCES.join(", ")}`);
      }
      const resolved = path.resolve(file);
      if (!existsSync(resolved)) throw new UsageError(`no file ${resolved}`);
      const started = performance.now();
      if (source === "names") {
        const type = args.flags.type ?? "plugin";
        if (!(TYPES as readonly string[]).includes(type)) {
          throw new UsageError(`--type must be one of ${TYPES.join(", ")}`);
        }
        const names = await importDirectoryFile(
          new DirectoryStore(sql),
          resolved,
          type as (typeof TYPES)[number],
          !config?.platform.databaseUrl,
        );
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        const counts = Object.entries(names).map(([kind, count]) => `${count} ${kind} names`);
        io.err(`Imported ${counts.join(" and ")} from ${resolved} in ${seconds} s.`);
        return;
      }
      const result = await withFanOut(sql, config, store, () =>
        source === "wordfence" ? importWordfenceFile(store, resolved) : importIntelFile(store, resolved),
      );
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      io.err(
        result.imported
          ? `Imported ${result.records - result.skipped} records (${result.rows} component entries, ${result.skipped} skipped${result.capped > 0 ? `, ${result.capped} larger than a record's caps, imported in part` : ""}) from ${resolved} as source ${result.source} in ${seconds} s.`
          : `${resolved} is already the served ${result.source} data; nothing changed.`,
      );
      return;
    }
    case "status": {
      const sources = await store.sources();
      if (args.flags.json === true) {
        // The names index's rows in the sources' shape, so that the list stays one list.
        const names = (await new DirectoryStore(sql).sources()).map((row) => ({
          id: `names:${row.component_type}s`,
          generation: row.generation,
          as_of: row.updated_through,
          fetched_at: row.fetched_at,
          etag: row.etag,
          last_modified: row.last_modified,
          content_sha256: null,
          record_count: row.record_count,
          attribution: null,
          checked_at: row.checked_at,
          last_error: row.last_error,
          importing: row.importing,
          origin: row.origin,
        }));
        io.out(JSON.stringify([...sources, ...names]));
        return;
      }
      if (sources.length === 0) io.err("No intel source has been imported or fetched yet.");
      for (const row of sources) {
        const date = (value: Date | null) => (value ? new Date(value).toISOString() : "never");
        io.out(
          `${row.id.padEnd(10)} ${row.generation ? `${String(row.record_count).padStart(6)} records` : "   no data     "}  as of ${date(row.as_of)}  fetched ${date(row.fetched_at)}  checked ${date(row.checked_at)}${row.importing ? "  (importing)" : ""}`,
        );
        if (row.last_error) io.out(`           last error: ${row.last_error}`);
      }
      const names = await new DirectoryStore(sql).sources();
      for (const row of names) {
        const date = (value: Date | null) => (value ? new Date(value).toISOString() : "never");
        const label = `names:${row.component_type}s`.padEnd(14);
        io.out(
          `${label} ${row.generation ? `${String(row.record_count).padStart(6)} names  ` : "   no data     "}  from ${row.origin ?? "-"}  fetched ${date(row.fetched_at)}  checked ${date(row.checked_at)}${row.importing ? "  (importing)" : ""}`,
        );
        if (row.last_error) io.out(`               last error: ${row.last_error}`);
      }
      // WPVulnerability is asked on demand: its cache, not an import.
      const wpv = await store.wpvulnerabilitySummary();
      if (wpv.answered + wpv.failing > 0) {
        io.out(
          `wpvulnerability ${String(wpv.answered).padStart(6)} components cached  last answer ${wpv.last_answer ? new Date(wpv.last_answer).toISOString() : "never"}${wpv.failing > 0 ? `  ${wpv.failing} failing` : ""}`,
        );
        if (wpv.last_error) io.out(`           last error: ${wpv.last_error}`);
      }
      return;
    }
    case "refresh": {
      if (!config) throw new UsageError("intel refresh needs the service's configuration");
      const client = config.intel.wporgApiUrl ? new WporgClient(config.intel.wporgApiUrl, SERVICE_USER_AGENT) : null;
      const refresher = new IntelRefresher(
        store,
        new LatestVersions(store, client, silentLogger),
        config.intel,
        SERVICE_USER_AGENT,
        silentLogger,
        new DirectoryRefresher(
          new DirectoryStore(sql),
          config.intel.wporgApiUrl ?? null,
          SERVICE_USER_AGENT,
          silentLogger,
        ),
      );
      // Advisories a refresh adds are announced as the service's own refresh announces them.
      const outcomes = await withFanOut(sql, config, store, () => refresher.refreshAll());
      for (const outcome of outcomes) {
        const detail =
          outcome.result === "updated"
            ? `${outcome.records} records`
            : outcome.result === "skipped"
              ? outcome.reason
              : outcome.result === "failed"
                ? outcome.error
                : "unchanged (304)";
        io.err(`${outcome.source}: ${outcome.result} — ${detail}`);
      }
      if (outcomes.some((outcome) => outcome.result === "failed")) throw new Error("a refresh failed; see above");
      return;
    }
    default:
      throw new UsageError(`unknown command "intel ${action ?? ""}"; run with --help`);
  }
}

/**
 * Runs an import whose added advisories get their vulnerability.found fan-out queued, in the
 * transaction that serves them, as the service's imports do (docs/monitoring.md#vulnerabilityfound):
 * the CLI only queues the job; a worker of the service runs it.
 */
async function withFanOut<T>(
  sql: Sql,
  config: Config | undefined,
  store: IntelStore,
  run: () => Promise<T>,
): Promise<T> {
  if (!config) return run();
  const db = {
    sql,
    kind: config.platform.databaseUrl ? ("postgres" as const) : ("embedded" as const),
    close: async () => {},
  };
  const engine = await openQueueEngine({ role: "api" }, db, silentLogger);
  try {
    await createFanOutQueue(engine.boss, engine.notify);
    const queue = new FanOutQueue(engine.boss);
    store.added.listen((tx, batch) => queue.enqueue(tx, batch));
    return await run();
  } finally {
    await engine.stop({ graceful: false, timeoutMs: 1_000 });
  }
}
