/**
 * Refreshing the intel sources: the Wordfence feed with a conditional request (a 304 keeps
 * the data and costs nothing), and WordPress core's latest release. Run by the recurring
 * `intel-refresh` job (intel-jobs.ts) and by `intel refresh` in the CLI.
 *
 * Whatever goes wrong — a 500, a refused key, a stalled or truncated download, a corrupt
 * body — the served data stays whole (the import swaps only a complete generation) and the
 * reason is recorded on the source row for `intel status`.
 */

import type { Logger } from "../platform/logger.ts";
import type { DirectoryRefresher, NamesOutcome } from "./directory/directory-refresh.ts";
import { importWordfenceFeed } from "./importer.ts";
import type { IntelStore } from "./intel.store.ts";
import type { LatestVersions } from "./latest-versions.ts";
import type { IntelConfig } from "./settings.ts";
import { WORDFENCE_SOURCE_ID, WPORG_SOURCE_ID } from "./source-ids.ts";

export type RefreshOutcome =
  | { source: string; result: "updated"; records: number }
  | { source: string; result: "not_modified" }
  | { source: string; result: "skipped"; reason: string }
  | { source: string; result: "failed"; error: string }
  | NamesOutcome;

export class DownloadError extends Error {
  override name = "DownloadError";
}

/**
 * The body's bytes, failing when no byte arrives for `stallMs` or the whole download passes
 * `deadline` — so a server that answers slowly cannot hold a refresh forever.
 */
async function* guardedBody(
  body: ReadableStream<Uint8Array>,
  stallMs: number,
  deadline: number,
): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  try {
    for (;;) {
      const wait = Math.min(stallMs, deadline - Date.now());
      if (wait <= 0) throw new DownloadError("the download took longer than INTEL_DOWNLOAD_TIMEOUT_MS");
      let timer: ReturnType<typeof setTimeout> | undefined;
      const stalled = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new DownloadError(`no data for ${Math.round(wait / 1000)} s: the download stalled`)),
          wait,
        );
      });
      const next = await Promise.race([reader.read(), stalled]).finally(() => clearTimeout(timer));
      if (next.done) return;
      yield next.value;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

export class IntelRefresher {
  constructor(
    private readonly store: IntelStore,
    private readonly latest: LatestVersions,
    private readonly config: IntelConfig,
    private readonly userAgent: string,
    private readonly logger: Logger,
    /** The WordPress.org names index (plugins and themes); absent in tests that do not need it. */
    private readonly names?: DirectoryRefresher,
  ) {}

  /** Whether a source that is configured has never been fetched (start-up then asks for a refresh at once). */
  async needsFirstRefresh(): Promise<boolean> {
    const wordfence = await this.store.source(WORDFENCE_SOURCE_ID);
    if (this.config.wordfenceApiKey && !wordfence?.generation) return true;
    return (await this.names?.neverFetched()) ?? false;
  }

  async refreshAll(): Promise<RefreshOutcome[]> {
    const outcomes: RefreshOutcome[] = [
      await this.refreshWordfence(),
      await this.refreshCore(),
      ...((await this.names?.refreshAll()) ?? []),
    ];
    for (const outcome of outcomes) {
      const level = outcome.result === "failed" ? "warn" : "info";
      this.logger[level]("intel refresh", { ...outcome });
    }
    return outcomes;
  }

  async refreshWordfence(): Promise<RefreshOutcome> {
    const source = WORDFENCE_SOURCE_ID;
    const key = this.config.wordfenceApiKey;
    if (!key) return { source, result: "skipped", reason: "WORDFENCE_API_KEY is not set" };
    const served = await this.store.source(source);
    const headers: Record<string, string> = {
      authorization: `Bearer ${key}`,
      accept: "application/json",
      "user-agent": this.userAgent,
    };
    if (served?.generation && served.etag) headers["if-none-match"] = served.etag;
    if (served?.generation && served.last_modified) headers["if-modified-since"] = served.last_modified;
    const deadline = Date.now() + this.config.downloadTimeoutMs;
    const controller = new AbortController();
    const headersTimer = setTimeout(() => controller.abort(), this.config.stallTimeoutMs);
    try {
      let response: Response;
      try {
        response = await fetch(this.config.wordfenceFeedUrl, { headers, signal: controller.signal });
      } catch (error) {
        throw new DownloadError(
          controller.signal.aborted
            ? `no answer within ${Math.round(this.config.stallTimeoutMs / 1000)} s`
            : `the feed could not be reached: ${(error as Error).message}`,
        );
      } finally {
        clearTimeout(headersTimer);
      }
      if (response.status === 304) {
        await response.body?.cancel().catch(() => {});
        await this.store.recordCheck(source, null);
        return { source, result: "not_modified" };
      }
      if (!response.ok || !response.body) {
        await response.body?.cancel().catch(() => {});
        const hint = response.status === 401 || response.status === 403 ? " (check WORDFENCE_API_KEY)" : "";
        throw new DownloadError(`the feed answered ${response.status}${hint}`);
      }
      const result = await importWordfenceFeed(
        this.store,
        guardedBody(response.body, this.config.stallTimeoutMs, deadline),
        {
          etag: response.headers.get("etag"),
          lastModified: response.headers.get("last-modified"),
          // A feed that shrank to less than half of what is served is more likely broken than true.
          minRecords: served?.generation ? Math.floor(served.record_count / 2) : undefined,
        },
      );
      return { source, result: "updated", records: result.records - result.skipped };
    } catch (error) {
      // The key is in a header only; no message here can carry it.
      const message = (error as Error).message;
      await this.store.recordCheck(source, message).catch(() => {});
      return { source, result: "failed", error: message };
    }
  }

  /** Core's latest release, ahead of the reports that will ask for it. */
  async refreshCore(): Promise<RefreshOutcome> {
    const source = WPORG_SOURCE_ID;
    if (!this.latest.enabled) return { source, result: "skipped", reason: "WPORG_API_URL is off" };
    const answer = await this.latest.fetch("wordpress", "wordpress");
    return answer.latest_version
      ? { source, result: "updated", records: 1 }
      : { source, result: "failed", error: `no latest WordPress version (${answer.reason})` };
  }
}
