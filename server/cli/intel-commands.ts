/**
 * `intel …` commands of the admin CLI: offline imports (air-gapped operation), the sources'
 * status, and a refresh now. See docs/intel.md.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import type { Config } from "../config.ts";
import type { Sql } from "../db/database.ts";
import { importIntelFile, importWordfenceFile } from "../intel/importer.ts";
import { IntelStore } from "../intel/intel.store.ts";
import { LatestVersions } from "../intel/latest-versions.ts";
import { IntelRefresher } from "../intel/refresh.ts";
import { WporgClient } from "../intel/wporg.ts";
import { silentLogger } from "../logging/logger.ts";
import { SERVICE_USER_AGENT } from "../version.ts";
import type { CliIO, ParsedArgs } from "./commands.ts";
import { UsageError } from "./commands.ts";

const SOURCES = ["file", "wordfence"] as const;

export async function runIntelCommand(
  sql: Sql,
  action: string | undefined,
  args: ParsedArgs,
  io: CliIO,
  config: Config | undefined,
): Promise<void> {
  const store = new IntelStore(sql, undefined, !config?.databaseUrl);
  switch (action) {
    case "import": {
      const file = args.flags.file;
      if (typeof file !== "string") throw new UsageError("intel import needs --file <path>");
      const source = args.flags.source ?? "file";
      if (typeof source !== "string" || !(SOURCES as readonly string[]).includes(source)) {
        throw new UsageError(`--source must be one of ${SOURCES.join(", ")}`);
      }
      const resolved = path.resolve(file);
      if (!existsSync(resolved)) throw new UsageError(`no file ${resolved}`);
      const started = performance.now();
      const result =
        source === "wordfence" ? await importWordfenceFile(store, resolved) : await importIntelFile(store, resolved);
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
        io.out(JSON.stringify(sources));
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
      );
      const outcomes = await refresher.refreshAll();
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
