/**
 * Monitoring's parts, built once per process (services.ts): the events outbox, webhooks and
 * their delivery worker, email alerts and their worker. `start()` runs the workers (worker
 * role, start/runtime.ts); `close()` stops them and lets go of connections.
 *
 * Other features tell accounts about things through `events.emit(...)` (event.service.ts).
 * Monitors (monitors/) run reports on a schedule through the reports feature, and learn how
 * each ended from its outcomes (report events and regressions are listeners on them).
 */
import type { TargetPolicy } from "../analyzer/fetch/target-policy.ts";
import type { Database } from "../platform/db/database.ts";
import { ApiProblem } from "../platform/http/problem.ts";
import type { Logger } from "../platform/logger.ts";
import type { QueueEngine } from "../platform/queue.ts";
import type { PlatformSettings } from "../platform/settings.ts";
import { SERVICE_VERSION } from "../platform/version.ts";
import type { ReportHistoryService } from "../reports/report-history.service.ts";
import type { ReportOutcomes } from "../reports/report-outcomes.ts";
import type { ReportService } from "../reports/reports.service.ts";
import type { ReportsSettings } from "../reports/settings.ts";
import { AlertQueue, createAlertQueues, MONITORING_DAILY_QUEUE } from "./email/alert-jobs.ts";
import { AlertSettingsService } from "./email/alert-settings.service.ts";
import { AlertWorker } from "./email/alerts.worker.ts";
import { Mailer } from "./email/mailer.ts";
import { EventService } from "./events/event.service.ts";
import { reportEvents } from "./events/report-events.ts";
import { MonitorService } from "./monitors/monitors.service.ts";
import { monitorRegressions } from "./monitors/regressions.ts";
import { MonitorScheduler } from "./monitors/scheduler.ts";
import type { MonitoringConfig, MonitoringSettings } from "./settings.ts";
import { VulnerabilityFanOut } from "./vulnerabilities/fan-out.ts";
import { createFanOutQueue, FanOutQueue } from "./vulnerabilities/fan-out-queue.ts";
import { siteComponentsListener } from "./vulnerabilities/site-components.ts";
import { DeliveryWorker } from "./webhooks/delivery.worker.ts";
import { createDeliveryQueue, DeliveryQueue } from "./webhooks/delivery-queue.ts";
import { keyFromFile, SecretBox } from "./webhooks/secret-box.ts";
import { webhookResolver } from "./webhooks/webhook-url.ts";
import { WebhookService } from "./webhooks/webhooks.service.ts";

/** Events are kept this long (webhook delivery logs go with them); then the daily job drops them. */
export const EVENT_RETENTION_DAYS = 30;

export const WEBHOOK_USER_AGENT = `wpreport-webhooks/${SERVICE_VERSION} (+https://github.com/wpreport/wpreport)`;

export interface Monitoring {
  /** The outbox: `emit(accountId, type, data, { tx })`. */
  events: EventService;
  webhooks: WebhookService;
  /** Per-account email alert settings. */
  alerts: AlertSettingsService;
  /** Monitors: scheduled audits (docs/monitoring.md#monitors). */
  monitors: MonitorService;
  /** Starts each due monitor's run; ticks in the worker role (start()). */
  scheduler: MonitorScheduler;
  /** Whether alert emails can be sent (SMTP_URL is set). */
  emailEnabled: boolean;
  deliveryWorker: DeliveryWorker;
  /** Undefined when email is off. */
  alertWorker: AlertWorker | undefined;
  /** vulnerability.found: intel's added advisories matched against the sites' latest components. */
  vulnerabilities: VulnerabilityFanOut;
  /** The daily job (monitoring-daily, 07:00 UTC): events past retention dropped, then the digests. */
  daily(now?: Date): Promise<{ swept: number; digests: number }>;
  /** Runs the delivery, email and daily workers in this process (the worker role). */
  start(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The key that seals webhook secrets: WEBHOOK_SECRET_KEY, else on the embedded database a key
 * file made in DATA_DIR on first use. On PostgreSQL without the key, webhooks are unavailable
 * (several processes share that database: a key file on one machine would not do).
 */
function secretBoxOf(settings: MonitoringConfig, dataDir: string, db: Database): () => SecretBox {
  let box: SecretBox | undefined;
  return () => {
    if (box) return box;
    if (settings.webhookSecretKey) box = new SecretBox(settings.webhookSecretKey);
    else if (db.kind === "embedded") box = new SecretBox(keyFromFile(dataDir));
    else
      throw new ApiProblem(
        "webhooks_unavailable",
        "Webhooks are not set up on this service: its operator must set WEBHOOK_SECRET_KEY (32 random bytes in base64), which encrypts their signing secrets.",
      );
    return box;
  };
}

export async function createMonitoring(deps: {
  /** Monitoring's settings, with the platform's data folder and public URL and the reports' DNS servers. */
  config: {
    monitoring: MonitoringSettings;
    platform: Pick<PlatformSettings, "dataDir" | "publicBaseUrl">;
    reports: Pick<ReportsSettings, "dnsServers">;
  };
  db: Database;
  queue: QueueEngine;
  policy: TargetPolicy;
  logger: Logger;
  /** The reports feature: monitors' runs are its reports, and its outcomes tell how they ended. */
  reports: { reports: ReportService; history: ReportHistoryService; outcomes: ReportOutcomes };
}): Promise<Monitoring> {
  const { config, db, queue, policy, logger } = deps;
  const settings = config.monitoring;
  const { boss } = queue;
  const notify = db.kind === "postgres";
  const mailer = settings.smtpUrl && settings.smtpFrom ? new Mailer(settings.smtpUrl, settings.smtpFrom) : undefined;
  await createDeliveryQueue(boss, notify);
  await createAlertQueues(boss, notify);
  await createFanOutQueue(boss, notify);
  const deliveries = new DeliveryQueue(boss);
  const alertQueue = mailer ? new AlertQueue(boss) : undefined;
  const alerts = new AlertSettingsService(db.sql, alertQueue);
  const events = new EventService({ sql: db.sql, deliveries, alerts, alertQueue });
  const secretBox = secretBoxOf(settings, config.platform.dataDir, db);
  const webhooks = new WebhookService({
    sql: db.sql,
    secretBox,
    policy,
    resolve: webhookResolver(config.reports.dnsServers),
    events,
  });
  const deliveryWorker = new DeliveryWorker({
    sql: db.sql,
    boss,
    queue: deliveries,
    secretBox,
    policy,
    dnsServers: config.reports.dnsServers,
    retryDelaysMs: settings.webhookRetryDelaysMs,
    alertQueue,
    userAgent: WEBHOOK_USER_AGENT,
    logger,
  });
  const alertWorker =
    mailer && alertQueue
      ? new AlertWorker({
          sql: db.sql,
          boss,
          queue: alertQueue,
          mailer,
          settings: alerts,
          events,
          baseUrl: config.platform.publicBaseUrl,
          logger,
        })
      : undefined;
  const monitors = new MonitorService({ sql: db.sql, policy, reports: deps.reports.reports });
  const scheduler = new MonitorScheduler({ sql: db.sql, reports: deps.reports.reports, events, logger });
  const vulnerabilities = new VulnerabilityFanOut({
    sql: db.sql,
    boss,
    queue: new FanOutQueue(boss),
    events,
    logger,
  });
  // What monitoring learns when a report ends, in the transaction that stores it: the event,
  // a monitor's verdict, the site's components (matched later against new advisories).
  deps.reports.outcomes.listen("report events", reportEvents(events, config.platform.publicBaseUrl));
  deps.reports.outcomes.listen(
    "monitor regressions",
    monitorRegressions(deps.reports.history, events, config.platform.publicBaseUrl),
  );
  deps.reports.outcomes.listen("site components", siteComponentsListener());
  let started = false;
  let dailyWorker: string | undefined;
  const monitoring: Monitoring = {
    events,
    webhooks,
    alerts,
    monitors,
    scheduler,
    emailEnabled: mailer !== undefined,
    deliveryWorker,
    alertWorker,
    vulnerabilities,
    async daily(now = new Date()) {
      const swept = await events.sweep(EVENT_RETENTION_DAYS);
      await alerts.sweepMailCounts();
      if (swept > 0) logger.info("events past retention dropped", { events: swept, days: EVENT_RETENTION_DAYS });
      const digests = alertWorker ? (await alertWorker.digest(now)).sent : 0;
      return { swept, digests };
    },
    async start() {
      if (started) return;
      started = true;
      await deliveryWorker.start();
      await alertWorker?.start();
      await vulnerabilities.start();
      dailyWorker = await boss.work(
        MONITORING_DAILY_QUEUE,
        { localConcurrency: 1, pollingIntervalSeconds: 5 },
        async () => {
          await monitoring.daily();
        },
      );
      scheduler.start();
    },
    async close() {
      if (started) {
        await scheduler.stop().catch(() => {});
        await deliveryWorker.stop().catch(() => {});
        await alertWorker?.stop().catch(() => {});
        await vulnerabilities.stop().catch(() => {});
        if (dailyWorker) await boss.offWork(MONITORING_DAILY_QUEUE, { id: dailyWorker, wait: true }).catch(() => {});
      }
      await deliveryWorker.close();
      mailer?.close();
    },
  };
  return monitoring;
}
