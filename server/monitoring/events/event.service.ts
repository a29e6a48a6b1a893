/**
 * The events outbox: how the rest of the service tells an account that something happened.
 *
 *   await services.monitoring.events.emit(accountId, "report.completed", { report, monitor_id }, { tx });
 *
 * `emit` writes the event (table `events`), and in the same transaction:
 * - one `webhook_deliveries` row and one pg-boss job (`webhook-delivery`) per enabled webhook
 *   of the account subscribed to the type — so an event is delivered exactly when the change
 *   that caused it commits, and never lost to a crash in between;
 * - for the account's email alerts: an `alert-email` job when it wants this type at once, or
 *   nothing when it wants a daily digest (the digest reads the events table) or no email.
 *
 * `data` must match the type's schema in shared/events.ts (TypeScript checks it; emit checks it
 * again at run time and throws on a mismatch, a bug of the caller). Site text in it must be
 * cleaned already (shared/untrusted-text.ts) — the report's stored fields are.
 *
 * Pass `tx` (a postgres.js transaction) to emit inside the caller's transaction (then call
 * `wake()` after the commit, or the workers find the jobs at their next poll). Without it,
 * emit runs its own. Either way it is quick: a few inserts, no network.
 */
import { FormatRegistry } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import {
  EVENT_DATA_SCHEMAS,
  type EventData,
  type EventEnvelope,
  type EventType,
  type SubscribableEventType,
} from "../../../shared/events.ts";
import type { Queryable, Sql } from "../../platform/db/database.ts";
import { ApiProblem } from "../../platform/http/problem.ts";
import { newId } from "../../platform/ids.ts";
import type { AlertQueue } from "../email/alert-jobs.ts";
import type { AlertSettingsService } from "../email/alert-settings.service.ts";
import type { DeliveryQueue } from "../webhooks/delivery-queue.ts";

export interface EmitOptions {
  /** The caller's transaction: the event commits (or not) with the caller's change. */
  tx?: Queryable;
}

export interface EmittedEvent {
  id: string;
  /** Webhook deliveries queued for it. */
  deliveries: number;
  /** How the account's email alerts take it. */
  email: "immediate" | "digest" | "none";
}

export interface StoredEvent {
  id: string;
  accountId: string;
  type: EventType;
  data: EventData<EventType>;
  createdAt: Date;
}

// TypeBox checks `format` only for registered formats; Elysia registers these when it loads,
// and a process that emits without it (a CLI, a test) gets these equivalents.
if (!FormatRegistry.Has("date-time"))
  FormatRegistry.Set("date-time", (value) => !Number.isNaN(Date.parse(value)) && /^\d{4}-\d\d-\d\dT/.test(value));
if (!FormatRegistry.Has("uri")) FormatRegistry.Set("uri", (value) => URL.canParse(value));

/** Throws when `data` is not what shared/events.ts says `type` carries. */
export function assertEventData(type: EventType, data: unknown): void {
  const schema = EVENT_DATA_SCHEMAS[type];
  if (!schema) throw new Error(`emit: unknown event type ${JSON.stringify(type)}`);
  if (Value.Check(schema, data)) return;
  const first = Value.Errors(schema, data).First();
  throw new Error(`emit(${type}): data does not match shared/events.ts at ${first?.path || "/"}: ${first?.message}`);
}

/** The body of a standard-format delivery: the envelope as JSON (same bytes for every attempt). */
export function envelopeOf(event: Pick<StoredEvent, "type" | "data" | "createdAt">): string {
  const envelope: EventEnvelope = { type: event.type, timestamp: event.createdAt.toISOString(), data: event.data };
  return JSON.stringify(envelope);
}

export class EventService {
  constructor(
    private readonly deps: {
      sql: Sql;
      deliveries: DeliveryQueue;
      alerts: AlertSettingsService;
      /** Undefined when email is off (SMTP_URL unset). */
      alertQueue: AlertQueue | undefined;
    },
  ) {}

  /** Records an event and fans it out to the account's webhooks and email alerts (see the top of this file). */
  async emit<T extends SubscribableEventType>(
    accountId: string,
    type: T,
    data: EventData<T>,
    options: EmitOptions = {},
  ): Promise<EmittedEvent> {
    assertEventData(type, data);
    const run = async (tx: Queryable): Promise<EmittedEvent> => {
      const id = await this.insert(tx, accountId, type, data);
      const hooks = await tx<{ id: string }[]>`
        select id from webhooks
        where account_id = ${accountId} and disabled_at is null and ${type} = any(events)
        order by id`;
      for (const hook of hooks) await this.queueDelivery(tx, accountId, hook.id, id, "event");
      const email = await this.deps.alerts.routeOf(tx, accountId, type);
      if (email === "immediate" && this.deps.alertQueue)
        await this.deps.alertQueue.enqueue(tx, { kind: "event", accountId, eventId: id });
      return { id, deliveries: hooks.length, email: this.deps.alertQueue ? email : "none" };
    };
    if (options.tx) return run(options.tx);
    const emitted = await this.deps.sql.begin(run);
    this.wake();
    return emitted;
  }

  /**
   * A `webhook.test` event delivered to one webhook only (POST /api/webhooks/{id}/test), or
   * a new delivery of an existing event (redelivery). Returns the delivery's id.
   */
  async deliverTo(
    accountId: string,
    webhookId: string,
    source: { event: { data: EventData<"webhook.test"> } } | { eventId: string },
  ): Promise<string> {
    const deliveryId = await this.deps.sql.begin(async (tx) => {
      await assertManualDeliveryRoom(tx, accountId, webhookId);
      if ("eventId" in source) return this.queueDelivery(tx, accountId, webhookId, source.eventId, "redelivery");
      assertEventData("webhook.test", source.event.data);
      const eventId = await this.insert(tx, accountId, "webhook.test", source.event.data);
      return this.queueDelivery(tx, accountId, webhookId, eventId, "test");
    });
    this.wake();
    return deliveryId;
  }

  async get(eventId: string): Promise<StoredEvent | undefined> {
    const [row] = await this.deps.sql<
      { id: string; account_id: string; type: EventType; data: EventData<EventType>; created_at: Date }[]
    >`select id, account_id, type, data, created_at from events where id = ${eventId}`;
    return row
      ? { id: row.id, accountId: row.account_id, type: row.type, data: row.data, createdAt: row.created_at }
      : undefined;
  }

  /** Drops events older than `days` (their deliveries go with them). */
  async sweep(days: number): Promise<number> {
    const rows = await this.deps.sql`
      delete from events where created_at < now() - ${days} * interval '1 day' returning id`;
    return rows.length;
  }

  private async insert(tx: Queryable, accountId: string, type: EventType, data: unknown): Promise<string> {
    const id = newId("evt");
    await tx`insert into events (id, account_id, type, data) values (${id}, ${accountId}, ${type}, ${tx.json(data as never)})`;
    return id;
  }

  private async queueDelivery(
    tx: Queryable,
    accountId: string,
    webhookId: string,
    eventId: string,
    trigger: "event" | "test" | "redelivery",
  ): Promise<string> {
    const id = newId("dlv");
    await tx`
      insert into webhook_deliveries (id, webhook_id, event_id, trigger, next_attempt_at)
      values (${id}, ${webhookId}, ${eventId}, ${trigger}, now())`;
    await this.deps.deliveries.enqueue(tx, accountId, { deliveryId: id, attempt: 1 });
    return id;
  }

  /**
   * Wakes this process's delivery and email workers. emit() does it after its own
   * transaction; a caller that passed `tx` may call it after committing (otherwise the
   * workers find the jobs at their next poll, within a second or two).
   */
  wake(): void {
    this.deps.deliveries.wake();
    this.deps.alertQueue?.wake();
  }
}

/** Tests and redeliveries one webhook may be sent per minute, and one account across its webhooks. */
export const MANUAL_DELIVERIES_PER_MINUTE = { webhook: 5, account: 20 } as const;

/**
 * Tests and redeliveries are asked for by hand, cost nothing, and each is an HTTP request to the
 * account's endpoint: past MANUAL_DELIVERIES_PER_MINUTE (per webhook, per account) they are
 * refused with 429 (issue 30: 280 tests in a row to a slow endpoint). Counted from the
 * deliveries themselves, under the account's lock, so the figure is exact across API processes.
 */
async function assertManualDeliveryRoom(tx: Queryable, accountId: string, webhookId: string): Promise<void> {
  await tx`select pg_advisory_xact_lock(hashtext(${`wpreport:webhook-manual:${accountId}`}))`;
  const [row] = await tx<{ webhook: number; account: number; oldest_ms: number | null }[]>`
    select count(*) filter (where d.webhook_id = ${webhookId})::int as webhook, count(*)::int as account,
      (extract(epoch from (now() - min(d.created_at) filter (where d.webhook_id = ${webhookId}))) * 1000)::float8 as oldest_ms
    from webhook_deliveries d join webhooks w on w.id = d.webhook_id
    where w.account_id = ${accountId} and d.trigger in ('test', 'redelivery')
      and d.created_at > now() - interval '1 minute'`;
  const perWebhook = (row?.webhook ?? 0) >= MANUAL_DELIVERIES_PER_MINUTE.webhook;
  if (!perWebhook && (row?.account ?? 0) < MANUAL_DELIVERIES_PER_MINUTE.account) return;
  const retryAfter = perWebhook ? Math.max(1, Math.ceil((60_000 - (row?.oldest_ms ?? 0)) / 1000)) : 60;
  throw new ApiProblem(
    "rate_limited",
    perWebhook
      ? `This webhook was sent ${MANUAL_DELIVERIES_PER_MINUTE.webhook} tests or redeliveries in the last minute, the most allowed. Retry after the Retry-After delay.`
      : `This account's webhooks were sent ${MANUAL_DELIVERIES_PER_MINUTE.account} tests or redeliveries in the last minute, the most allowed. Retry after the Retry-After delay.`,
    {
      headers: { "retry-after": String(retryAfter) },
      extensions: {
        retry_after: retryAfter,
        limit: perWebhook ? "webhook_manual_deliveries" : "account_manual_deliveries",
        per_minute: perWebhook ? MANUAL_DELIVERIES_PER_MINUTE.webhook : MANUAL_DELIVERIES_PER_MINUTE.account,
      },
    },
  );
}
