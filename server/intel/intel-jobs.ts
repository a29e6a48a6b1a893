/**
 * The recurring intel refresh as a pg-boss job: `boss.schedule` puts one `intel-refresh`
 * job on the queue per cron occurrence, however many processes evaluate the schedule, and
 * the queue's `stately` policy keeps at most one queued and one running. Any worker process
 * may run it. A database whose sources were never fetched gets one at start-up.
 */
import type { PgBoss } from "pg-boss";
import type { Logger } from "../platform/logger.ts";
import { NAMES_REFRESH_DEADLINE_MS } from "./directory/directory-refresh.ts";
import type { IntelStore } from "./intel.store.ts";
import type { IntelRefresher } from "./refresh.ts";
import type { IntelConfig } from "./settings.ts";

export const INTEL_REFRESH_QUEUE = "intel-refresh";

export async function createIntelRefreshQueue(boss: PgBoss, config: IntelConfig): Promise<void> {
  await boss.createQueue(INTEL_REFRESH_QUEUE, {
    policy: "stately",
    retryLimit: 2,
    retryDelay: 300,
    // A 160 MB download and import, then the names index (a full listing: ~300 pages), with
    // room to spare; then pg-boss hands it to another worker.
    expireInSeconds: Math.ceil((config.downloadTimeoutMs + NAMES_REFRESH_DEADLINE_MS) / 1000) + 600,
    deleteAfterSeconds: 7 * 24 * 3600,
  });
  if (config.refreshCron) {
    await boss.schedule(INTEL_REFRESH_QUEUE, config.refreshCron, {}, { tz: "UTC" });
  } else {
    await boss.unschedule(INTEL_REFRESH_QUEUE).catch(() => {});
  }
}

/** Runs refresh jobs in this process, and asks for a first one when a source was never fetched. */
export async function startIntelRefreshWorker(
  boss: PgBoss,
  refresher: IntelRefresher,
  /** Kept for the callers; whether a first refresh is due is the refresher's to say. */
  _store: IntelStore,
  config: IntelConfig,
  logger: Logger,
): Promise<string> {
  const id = await boss.work(INTEL_REFRESH_QUEUE, { localConcurrency: 1, pollingIntervalSeconds: 30 }, async () => {
    await refresher.refreshAll();
  });
  if (config.refreshCron && (await refresher.needsFirstRefresh())) {
    logger.info("intel: a configured source has no data yet, refreshing now");
    await boss.send(INTEL_REFRESH_QUEUE, {}, { singletonKey: "first" });
    // This process's worker takes it now rather than at its next poll.
    boss.notifyWorker(id);
  }
  return id;
}
