/**
 * Makes webhook delivery attempts (jobs of the `webhook-delivery` queue), in the worker role.
 *
 * One attempt: claim it (a job for an attempt already made is dropped), build the body (the
 * standard envelope or the Slack text), sign it with the current secret — and the previous one
 * during a rotation's overlap —, POST it through the analyses' own network client: SafeClient
 * on the DNS-pinned agent with the target policy, so the address connected to is the address
 * checked, at every delivery (no SSRF through webhooks, whatever DNS answers by then).
 * Redirects are not followed: a 3xx is a failure, so a receiver cannot bounce us to an
 * internal address. 10 s per attempt; a 2xx answer is success.
 *
 * Then, in one transaction: the outcome on the delivery row; after a failure the next attempt
 * queued after its delay (WEBHOOK_RETRY_SCHEDULE); the webhook's failure streak; and when
 * every attempt has failed for 3 days, the webhook disabled and its owner told (alert email).
 */
import type { PgBoss } from "pg-boss";
import type { Agent } from "undici/index.js";
import type { EventData, EventType } from "../../../shared/events.ts";
import type { WebhookFormat } from "../../../shared/monitoring-api.ts";
import { oneLine } from "../../../shared/untrusted-text.ts";
import { createSafeAgent, DEFAULT_AGENT_LIMITS } from "../../analyzer/fetch/safe-agent.ts";
import { DEFAULT_CLIENT_LIMITS, FetchFailure, SafeClient } from "../../analyzer/fetch/safe-client.ts";
import type { TargetPolicy } from "../../analyzer/fetch/target-policy.ts";
import type { Sql } from "../../platform/db/database.ts";
import type { Logger } from "../../platform/logger.ts";
import type { AlertQueue } from "../email/alert-jobs.ts";
import { envelopeOf } from "../events/event.service.ts";
import {
  DELIVERY_ATTEMPTS_PER_ACCOUNT,
  type DeliveryJob,
  type DeliveryQueue,
  WEBHOOK_DELIVERY_QUEUE,
} from "./delivery-queue.ts";
import type { SecretBox } from "./secret-box.ts";
import { signDelivery } from "./signing.ts";
import { slackBody } from "./slack-body.ts";

/** A webhook whose every attempt has failed for this long is disabled. */
export const DISABLE_AFTER_MS = 3 * 24 * 3_600_000;
const ATTEMPT_TIMEOUT_MS = 10_000;
/** What is kept of an answer's body: enough to read an error message. */
const RESPONSE_BYTES = 4_096;
const RESPONSE_CHARS = 512;
/** A claim older than this is from a worker that died mid-attempt (the job's expiry is 60 s). */
const STALE_CLAIM_SECONDS = 90;

interface AttemptRow {
  id: string;
  trigger: "event" | "test" | "redelivery";
  webhook_id: string;
  account_id: string;
  url: string;
  format: WebhookFormat;
  secret_enc: string;
  previous_secret_enc: string | null;
  previous_secret_expires_at: Date | null;
  disabled_at: Date | null;
  event_id: string;
  type: EventType;
  data: EventData<EventType>;
  event_created_at: Date;
}

export interface AttemptOutcome {
  ok: boolean;
  status: number | null;
  error: string | null;
  response: string | null;
  durationMs: number | null;
}

/** Delivery jobs one slot takes per fetch, attempted at once. */
const DELIVERY_BATCH = 10;

export interface DeliveryWorkerDeps {
  sql: Sql;
  boss: PgBoss;
  queue: DeliveryQueue;
  secretBox: () => SecretBox;
  policy: TargetPolicy;
  dnsServers: readonly string[];
  retryDelaysMs: readonly number[];
  /** Undefined when email is off. */
  alertQueue: AlertQueue | undefined;
  userAgent: string;
  logger: Logger;
  /** Attempts this process makes at once. */
  concurrency?: number;
}

/** Seconds before an attempt over its account's share of this worker's slots is offered again. */
const SHARE_RETRY_SECONDS = 1;

export class DeliveryWorker {
  private readonly agent: Agent;
  private workerId: string | undefined;
  /** Slots of this process whose batch holds an attempt of the account: at most half of them each. */
  private readonly slotsHeld = new Map<string, number>();

  constructor(private readonly deps: DeliveryWorkerDeps) {
    this.agent = createSafeAgent(deps.policy, DEFAULT_AGENT_LIMITS, deps.dnsServers);
  }

  async start(): Promise<void> {
    const { boss, queue } = this.deps;
    this.workerId = await boss.work<DeliveryJob>(
      WEBHOOK_DELIVERY_QUEUE,
      {
        localConcurrency: this.deps.concurrency ?? 4,
        // A backlog (one advisory fanned out to thousands of sites: bench:fan-out) is fetched
        // back to back while batches come full, not one job per slot per poll (4 deliveries/s).
        batchSize: DELIVERY_BATCH,
        burstWhenBatchFull: true,
        // Retries are jobs with a start time: NOTIFY fires when they are queued, not when they
        // come due, so the poll is what finds them (and it is cheap).
        pollingIntervalSeconds: 1,
        notifyPollingIntervalSeconds: 1,
        // Fair per account: one account's backlog never takes every attempt (delivery-queue.ts).
        groupConcurrency: DELIVERY_ATTEMPTS_PER_ACCOUNT,
      },
      // Each attempt records its own outcome; one that throws (a database error) fails the
      // batch, and pg-boss offers its jobs again: the attempts already made are skipped.
      (jobs) => this.batch(jobs.map((job) => job.data)),
    );
    const id = this.workerId;
    queue.wakeLocal = () => boss.notifyWorker(id);
  }

  async stop(): Promise<void> {
    this.deps.queue.wakeLocal = undefined;
    if (this.workerId) await this.deps.boss.offWork(WEBHOOK_DELIVERY_QUEUE, { id: this.workerId, wait: true });
    this.workerId = undefined;
  }

  async close(): Promise<void> {
    await this.agent.close().catch(() => {});
  }

  /**
   * One fetched batch. A slot waits for every attempt of its batch (up to 10 s for a slow
   * endpoint), so an account whose attempts already hold half of this process's slots gets no
   * more: its attempts in this batch are offered again a second later instead of made, and the
   * other half of the slots stays free for other accounts (issue 30).
   */
  private async batch(jobs: DeliveryJob[]): Promise<void> {
    const share = Math.max(1, Math.floor((this.deps.concurrency ?? 4) / 2));
    const taken: string[] = [];
    const now: DeliveryJob[] = [];
    const later: DeliveryJob[] = [];
    for (const job of jobs) {
      const account = job.accountId;
      if (account === undefined || taken.includes(account)) now.push(job);
      else if ((this.slotsHeld.get(account) ?? 0) < share) {
        taken.push(account);
        this.slotsHeld.set(account, (this.slotsHeld.get(account) ?? 0) + 1);
        now.push(job);
      } else later.push(job);
    }
    try {
      await Promise.all([
        ...later.map((job) =>
          this.deps.queue.enqueue(this.deps.sql, job.accountId as string, job, SHARE_RETRY_SECONDS, -1),
        ),
        ...now.map((job) => this.attempt(job)),
      ]);
    } finally {
      for (const account of taken) {
        const left = (this.slotsHeld.get(account) ?? 1) - 1;
        if (left > 0) this.slotsHeld.set(account, left);
        else this.slotsHeld.delete(account);
      }
    }
  }

  /** One attempt of one delivery. Public for tests; the queue calls it. */
  async attempt(job: DeliveryJob): Promise<void> {
    const { sql, logger } = this.deps;
    const [row] = await sql<AttemptRow[]>`
      update webhook_deliveries d set attempts = ${job.attempt}, last_attempt_at = now(), next_attempt_at = null
      from webhooks w, events e
      where d.id = ${job.deliveryId} and w.id = d.webhook_id and e.id = d.event_id and d.status = 'pending'
        and (d.attempts = ${job.attempt - 1}
             or (d.attempts = ${job.attempt} and d.last_attempt_at < now() - ${STALE_CLAIM_SECONDS} * interval '1 second'))
      returning d.id, d.trigger, d.webhook_id, w.account_id, w.url, w.format, w.secret_enc, w.previous_secret_enc,
        w.previous_secret_expires_at, w.disabled_at, d.event_id, e.type, e.data, e.created_at as event_created_at`;
    if (!row) return; // made already, finished, or deleted with its webhook
    if (row.disabled_at && row.trigger === "event") {
      await sql`
        update webhook_deliveries set status = 'failed', last_error = 'Not sent: the webhook is disabled.'
        where id = ${row.id}`;
      return;
    }
    let outcome: AttemptOutcome;
    try {
      outcome = await this.send(row);
    } catch (error) {
      // Not the endpoint's fault (a secret that no longer opens): recorded, logged, retried.
      logger.error("webhook delivery could not be made", { delivery_id: row.id, error });
      outcome = {
        ok: false,
        status: null,
        error: `Not sent: ${oneLine(error instanceof Error ? error.message : String(error), 200)}.`,
        response: null,
        durationMs: null,
      };
    }
    await this.record(row, job.attempt, outcome);
  }

  private secrets(row: AttemptRow): string[] {
    const box = this.deps.secretBox();
    const secrets = [box.open(row.secret_enc, row.webhook_id)];
    if (row.previous_secret_enc && row.previous_secret_expires_at && row.previous_secret_expires_at > new Date()) {
      // A previous secret sealed under an older WEBHOOK_SECRET_KEY (a rotation after a key
      // change) no longer opens: sign with the current one alone rather than not at all.
      try {
        secrets.push(box.open(row.previous_secret_enc, row.webhook_id));
      } catch {
        this.deps.logger.warn("previous webhook secret does not open; signing with the current one", {
          webhook_id: row.webhook_id,
        });
      }
    }
    return secrets;
  }

  private async send(row: AttemptRow): Promise<AttemptOutcome> {
    const event = { type: row.type, data: row.data, createdAt: row.event_created_at };
    const body = row.format === "slack" ? slackBody(row.type, row.data) : envelopeOf(event);
    const headers = signDelivery(this.secrets(row), row.event_id, new Date(), body);
    const client = new SafeClient(
      this.agent,
      this.deps.policy,
      AbortSignal.timeout(ATTEMPT_TIMEOUT_MS + 1_000),
      this.deps.userAgent,
      {
        ...DEFAULT_CLIENT_LIMITS,
        maxBodyBytes: RESPONSE_BYTES,
        maxRedirects: 0,
        requestTimeoutMs: ATTEMPT_TIMEOUT_MS,
        concurrency: 1,
        maxTotalBytes: RESPONSE_BYTES,
      },
    );
    const started = performance.now();
    try {
      const answer = await client.fetch(row.url, {
        method: "POST",
        body,
        follow: false,
        headers: { ...headers, "content-type": "application/json", accept: "*/*" },
      });
      const durationMs = Math.round(performance.now() - started);
      const response = oneLine(answer.body.toString("utf8"), RESPONSE_CHARS).trim() || null;
      if (answer.status >= 200 && answer.status < 300)
        return { ok: true, status: answer.status, error: null, response, durationMs };
      const error =
        answer.status >= 300 && answer.status < 400
          ? `The endpoint answered ${answer.status} (a redirect): redirects are not followed, deliveries go only to the webhook's URL.`
          : `The endpoint answered ${answer.status}; only a 2xx status counts as delivered.`;
      return { ok: false, status: answer.status, error, response, durationMs };
    } catch (error) {
      const durationMs = Math.round(performance.now() - started);
      if (!(error instanceof FetchFailure)) throw error;
      const reason =
        error.kind === "blocked"
          ? `Refused by the target policy: ${error.message}.`
          : error.kind === "timeout" || error.kind === "aborted"
            ? `No answer within ${ATTEMPT_TIMEOUT_MS / 1000} s.`
            : `The endpoint could not be reached (${error.kind}): ${error.message}.`;
      return { ok: false, status: null, error: oneLine(reason, 300), response: null, durationMs };
    }
  }

  private async record(row: AttemptRow, attempt: number, outcome: AttemptOutcome): Promise<void> {
    const { sql, queue, retryDelaysMs, alertQueue, logger } = this.deps;
    const delayMs = retryDelaysMs[attempt - 1];
    // A test is tried once: its caller is looking at the log now, and retried tests made a
    // free flood of attempts (issue 30). Events and redeliveries follow the schedule.
    const retry = !outcome.ok && delayMs !== undefined && row.trigger !== "test";
    const disabled = await sql.begin(async (tx) => {
      await tx`
        update webhook_deliveries set
          status = ${outcome.ok ? "succeeded" : retry ? "pending" : "failed"},
          last_status = ${outcome.status}, last_error = ${outcome.error}, last_response = ${outcome.response},
          last_duration_ms = ${outcome.durationMs},
          next_attempt_at = ${retry ? tx`now() + ${delayMs} * interval '1 millisecond'` : null}
        where id = ${row.id}`;
      if (retry)
        await queue.enqueue(
          tx,
          row.account_id,
          { deliveryId: row.id, attempt: attempt + 1 },
          Math.ceil((delayMs as number) / 1000),
        );
      if (outcome.ok) {
        await tx`update webhooks set failing_since = null where id = ${row.webhook_id} and failing_since is not null`;
        return false;
      }
      // The streak: since when every attempt has failed. Three days of it disable the webhook.
      const [streak] = await tx<{ expired: boolean }[]>`
        update webhooks set failing_since = coalesce(failing_since, now()) where id = ${row.webhook_id}
        returning disabled_at is null and failing_since < now() - ${DISABLE_AFTER_MS} * interval '1 millisecond' as expired`;
      if (!streak?.expired) return false;
      const reason = `Disabled after every delivery failed for 3 days. The last attempt: ${outcome.error ?? "failed"}`;
      const done = await tx`
        update webhooks set disabled_at = now(), disabled_reason = ${reason}, updated_at = now()
        where id = ${row.webhook_id} and disabled_at is null returning id`;
      const disabledNow = done.length > 0;
      if (disabledNow && alertQueue)
        await alertQueue.enqueue(tx, {
          kind: "webhook_disabled",
          accountId: row.account_id,
          webhookId: row.webhook_id,
        });
      return disabledNow;
    });
    if (disabled) {
      logger.warn("webhook disabled after failing for 3 days", {
        webhook_id: row.webhook_id,
        account_id: row.account_id,
      });
      alertQueue?.wake();
    }
  }
}
