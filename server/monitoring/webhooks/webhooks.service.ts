/**
 * Webhooks of an account: create (the signing secret shown once), list, read, change, delete,
 * rotate the secret with an overlap, send a test, read the delivery log, redeliver. Knows
 * nothing of HTTP; refusals are ApiProblems. Deliveries themselves: delivery.worker.ts.
 */
import {
  type CreatedWebhook,
  type CreateWebhookRequest,
  type Delivery,
  type DeliveryList,
  MAX_WEBHOOKS_PER_ACCOUNT,
  type RotatedSecret,
  type UpdateWebhookRequest,
  type Webhook,
  type WebhookFormat,
  type WebhookList,
} from "../../../shared/monitoring-api.ts";
import type { TargetPolicy } from "../../analyzer/fetch/target-policy.ts";
import type { Sql } from "../../platform/db/database.ts";
import { ApiProblem } from "../../platform/http/problem.ts";
import { isId, newId } from "../../platform/ids.ts";
import type { EventService } from "../events/event.service.ts";
import { newSigningSecret, type SecretBox } from "./secret-box.ts";
import { checkWebhookUrl, type Resolve } from "./webhook-url.ts";

export const DEFAULT_PAGE = 20;
export const MAX_PAGE = 100;
/** How long the previous secret keeps signing after a rotation, unless asked otherwise. */
export const DEFAULT_ROTATION_OVERLAP_HOURS = 24;
export const MAX_ROTATION_OVERLAP_HOURS = 7 * 24;

export interface WebhookRow {
  id: string;
  account_id: string;
  url: string;
  events: string[];
  format: WebhookFormat;
  description: string | null;
  secret_enc: string;
  previous_secret_enc: string | null;
  previous_secret_expires_at: Date | null;
  disabled_at: Date | null;
  disabled_reason: string | null;
  failing_since: Date | null;
  created_at: Date;
}

interface DeliveryRow {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  trigger: Delivery["trigger"];
  status: Delivery["status"];
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  last_response: string | null;
  last_duration_ms: number | null;
  last_attempt_at: Date | null;
  next_attempt_at: Date | null;
  created_at: Date;
}

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export function webhookOf(row: WebhookRow, now = new Date()): Webhook {
  const overlap = row.previous_secret_expires_at && row.previous_secret_expires_at > now;
  return {
    id: row.id,
    url: row.url,
    events: row.events as Webhook["events"],
    format: row.format,
    description: row.description,
    status: row.disabled_at ? "disabled" : "enabled",
    disabled_at: iso(row.disabled_at),
    disabled_reason: row.disabled_reason,
    failing_since: iso(row.failing_since),
    previous_secret_expires_at: overlap ? iso(row.previous_secret_expires_at) : null,
    created_at: row.created_at.toISOString(),
  };
}

function deliveryOf(row: DeliveryRow): Delivery {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    event_id: row.event_id,
    event_type: row.event_type,
    trigger: row.trigger,
    status: row.status,
    attempts: row.attempts,
    last_status: row.last_status,
    last_error: row.last_error,
    last_response: row.last_response,
    last_duration_ms: row.last_duration_ms,
    last_attempt_at: iso(row.last_attempt_at),
    next_attempt_at: iso(row.next_attempt_at),
    created_at: row.created_at.toISOString(),
  };
}

const NO_WEBHOOK = "There is no webhook with this id in your account.";
const NO_DELIVERY = "There is no delivery with this id for this webhook.";

export interface Paging {
  before?: string;
  limit?: number;
}

export class WebhookService {
  constructor(
    private readonly deps: {
      sql: Sql;
      /** The key that seals secrets; throws webhooks_unavailable when there is none. */
      secretBox: () => SecretBox;
      policy: TargetPolicy;
      resolve: Resolve;
      events: EventService;
    },
  ) {}

  /** Whether webhooks can be created here (a secret key is configured or can be made). */
  available(): boolean {
    try {
      this.deps.secretBox();
      return true;
    } catch {
      return false;
    }
  }

  async create(accountId: string, input: CreateWebhookRequest): Promise<CreatedWebhook> {
    const box = this.deps.secretBox();
    const url = await checkWebhookUrl(input.url, this.deps.policy, this.deps.resolve);
    const id = newId("whk");
    const secret = newSigningSecret();
    const events = [...new Set(input.events)];
    const [row] = await this.deps.sql<WebhookRow[]>`
      insert into webhooks (id, account_id, url, events, format, description, secret_enc)
      select ${id}, ${accountId}, ${url}, ${events}, ${input.format ?? "standard"}, ${input.description?.trim() || null},
             ${box.seal(secret, id)}
      where (select count(*) from webhooks where account_id = ${accountId}) < ${MAX_WEBHOOKS_PER_ACCOUNT}
      returning *`;
    if (!row)
      throw new ApiProblem(
        "webhook_limit_reached",
        `An account may have at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks. Delete one you no longer use, or subscribe one endpoint to more events.`,
      );
    return { ...webhookOf(row), secret };
  }

  async list(accountId: string, paging: Paging = {}): Promise<WebhookList> {
    const { sql } = this.deps;
    const limit = Math.min(Math.max(paging.limit ?? DEFAULT_PAGE, 1), MAX_PAGE);
    let cursor: { created_at: Date; id: string } | undefined;
    if (paging.before !== undefined) {
      cursor = (await this.row(accountId, paging.before)) ?? undefined;
      if (!cursor) throw new ApiProblem("invalid_request", "The before cursor is not a webhook of this account.");
    }
    const rows = await sql<WebhookRow[]>`
      select * from webhooks where account_id = ${accountId}
        ${cursor ? sql`and (created_at, id) < (${cursor.created_at}, ${cursor.id})` : sql``}
      order by created_at desc, id desc limit ${limit + 1}`;
    const page = rows.slice(0, limit).map((row) => webhookOf(row));
    return { data: page, next_cursor: rows.length > limit ? (page.at(-1)?.id ?? null) : null };
  }

  async get(accountId: string, webhookId: string): Promise<Webhook> {
    return webhookOf(await this.mustRow(accountId, webhookId));
  }

  async update(accountId: string, webhookId: string, patch: UpdateWebhookRequest): Promise<Webhook> {
    const current = await this.mustRow(accountId, webhookId);
    const url =
      patch.url === undefined ? current.url : await checkWebhookUrl(patch.url, this.deps.policy, this.deps.resolve);
    const events = patch.events ? [...new Set(patch.events)] : current.events;
    const format = patch.format ?? current.format;
    const description = patch.description === undefined ? current.description : patch.description.trim() || null;
    const { sql } = this.deps;
    const enable = patch.enabled === true;
    const disable = patch.enabled === false;
    const [row] = await sql<WebhookRow[]>`
      update webhooks set url = ${url}, events = ${events}, format = ${format}, description = ${description},
        disabled_at = ${enable ? null : disable ? sql`coalesce(disabled_at, now())` : sql`disabled_at`},
        disabled_reason = ${enable ? null : disable ? sql`coalesce(disabled_reason, 'Disabled by you.')` : sql`disabled_reason`},
        failing_since = ${enable ? null : sql`failing_since`},
        updated_at = now()
      where id = ${webhookId} and account_id = ${accountId}
      returning *`;
    if (!row) throw new ApiProblem("not_found", NO_WEBHOOK);
    return webhookOf(row);
  }

  async remove(accountId: string, webhookId: string): Promise<void> {
    if (!isId("whk", webhookId)) throw new ApiProblem("not_found", NO_WEBHOOK);
    const rows = await this.deps.sql`
      delete from webhooks where id = ${webhookId} and account_id = ${accountId} returning id`;
    if (rows.length === 0) throw new ApiProblem("not_found", NO_WEBHOOK);
  }

  /**
   * A new signing secret. For `overlapHours` (24 by default) deliveries are signed with the
   * previous secret too, so receivers can switch without missing one; 0 ends the old secret
   * at once (a leaked secret). Rotating again during an overlap drops the older secret.
   */
  async rotateSecret(
    accountId: string,
    webhookId: string,
    overlapHours = DEFAULT_ROTATION_OVERLAP_HOURS,
  ): Promise<RotatedSecret> {
    const box = this.deps.secretBox();
    await this.mustRow(accountId, webhookId);
    const secret = newSigningSecret();
    const [row] = await this.deps.sql<WebhookRow[]>`
      update webhooks set
        previous_secret_enc = ${overlapHours > 0 ? this.deps.sql`secret_enc` : null},
        previous_secret_expires_at = ${overlapHours > 0 ? this.deps.sql`now() + ${overlapHours} * interval '1 hour'` : null},
        secret_enc = ${box.seal(secret, webhookId)},
        updated_at = now()
      where id = ${webhookId} and account_id = ${accountId}
      returning *`;
    if (!row) throw new ApiProblem("not_found", NO_WEBHOOK);
    return { webhook_id: row.id, secret, previous_secret_expires_at: webhookOf(row).previous_secret_expires_at };
  }

  /** The current secret and overlap, as a rotation answered them (an Idempotency-Key replay). */
  async currentSecret(accountId: string, webhookId: string): Promise<RotatedSecret & { webhook: Webhook }> {
    const row = await this.mustRow(accountId, webhookId);
    const webhook = webhookOf(row);
    return {
      webhook_id: row.id,
      secret: this.deps.secretBox().open(row.secret_enc, row.id),
      previous_secret_expires_at: webhook.previous_secret_expires_at,
      webhook,
    };
  }

  /** Sends a `webhook.test` event to this webhook only (even when it is disabled). */
  async test(accountId: string, webhookId: string): Promise<Delivery> {
    const row = await this.mustRow(accountId, webhookId);
    const deliveryId = await this.deps.events.deliverTo(accountId, row.id, {
      event: {
        data: {
          webhook_id: row.id,
          message: "This is a test delivery. Verify its signature with your secret and answer with a 2xx status.",
        },
      },
    });
    return this.delivery(accountId, webhookId, deliveryId);
  }

  async deliveries(
    accountId: string,
    webhookId: string,
    paging: Paging & { status?: Delivery["status"] } = {},
  ): Promise<DeliveryList> {
    await this.mustRow(accountId, webhookId);
    const { sql } = this.deps;
    const limit = Math.min(Math.max(paging.limit ?? DEFAULT_PAGE, 1), MAX_PAGE);
    let cursor: { created_at: Date; id: string } | undefined;
    if (paging.before !== undefined) {
      const [row] = isId("dlv", paging.before)
        ? await sql<{ created_at: Date; id: string }[]>`
            select created_at, id from webhook_deliveries where id = ${paging.before} and webhook_id = ${webhookId}`
        : [];
      if (!row) throw new ApiProblem("invalid_request", "The before cursor is not a delivery of this webhook.");
      cursor = row;
    }
    const rows = await sql<DeliveryRow[]>`
      select d.*, e.type as event_type from webhook_deliveries d join events e on e.id = d.event_id
      where d.webhook_id = ${webhookId}
        ${paging.status ? sql`and d.status = ${paging.status}` : sql``}
        ${cursor ? sql`and (d.created_at, d.id) < (${cursor.created_at}, ${cursor.id})` : sql``}
      order by d.created_at desc, d.id desc limit ${limit + 1}`;
    const page = rows.slice(0, limit).map(deliveryOf);
    return { data: page, next_cursor: rows.length > limit ? (page.at(-1)?.id ?? null) : null };
  }

  async delivery(accountId: string, webhookId: string, deliveryId: string): Promise<Delivery> {
    await this.mustRow(accountId, webhookId);
    const [row] = isId("dlv", deliveryId)
      ? await this.deps.sql<DeliveryRow[]>`
          select d.*, e.type as event_type from webhook_deliveries d join events e on e.id = d.event_id
          where d.id = ${deliveryId} and d.webhook_id = ${webhookId}`
      : [];
    if (!row) throw new ApiProblem("not_found", NO_DELIVERY);
    return deliveryOf(row);
  }

  /** A new delivery of the same event (the same webhook-id header), to the webhook's current URL. */
  async redeliver(accountId: string, webhookId: string, deliveryId: string): Promise<Delivery> {
    const original = await this.delivery(accountId, webhookId, deliveryId);
    const id = await this.deps.events.deliverTo(accountId, webhookId, { eventId: original.event_id });
    return this.delivery(accountId, webhookId, id);
  }

  private async row(accountId: string, webhookId: string): Promise<WebhookRow | undefined> {
    if (!isId("whk", webhookId)) return undefined;
    const [row] = await this.deps.sql<WebhookRow[]>`
      select * from webhooks where id = ${webhookId} and account_id = ${accountId}`;
    return row;
  }

  private async mustRow(accountId: string, webhookId: string): Promise<WebhookRow> {
    const row = await this.row(accountId, webhookId);
    if (!row) throw new ApiProblem("not_found", NO_WEBHOOK);
    return row;
  }
}
