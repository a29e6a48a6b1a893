/**
 * The shapes of the webhook routes (/api/webhooks…), written once as schemas like the rest of
 * the API (shared/api.ts): the server validates and documents with them, clients are typed by
 * them. What events carry is in shared/events.ts.
 */
import { type Static, Type } from "@sinclair/typebox";
import { EventTypeSchema, SUBSCRIBABLE_EVENT_TYPES } from "./events.ts";
import { Count, Nullable, named, StringEnum } from "./schema.ts";

/** Most webhooks one account may have. */
export const MAX_WEBHOOKS_PER_ACCOUNT = 20;
export const MAX_WEBHOOK_URL_LENGTH = 2048;
export const WEBHOOK_FORMATS = ["standard", "slack"] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

const WebhookEvents = Type.Array(EventTypeSchema, {
  minItems: 1,
  maxItems: SUBSCRIBABLE_EVENT_TYPES.length,
  uniqueItems: true,
  description: "The events this endpoint receives",
});

const WebhookFormatSchema = StringEnum(WEBHOOK_FORMATS, {
  description:
    'standard: the signed JSON event (Standard Webhooks); slack: a Slack-compatible `{ "text": … }` body (Slack incoming webhooks, Mattermost, Discord /slack), signed the same way',
});

const Description = Type.String({ maxLength: 200, description: "Your note: what this endpoint is" });

export const CreateWebhookRequestSchema = named(
  "CreateWebhookRequest",
  Type.Object(
    {
      url: Type.String({
        maxLength: MAX_WEBHOOK_URL_LENGTH,
        description:
          "Where deliveries are POSTed (http or https, a public address: the target policy of analyses applies)",
        examples: ["https://hooks.example.com/wpreport"],
      }),
      events: WebhookEvents,
      format: Type.Optional({ ...WebhookFormatSchema, default: "standard" }),
      description: Type.Optional(Description),
    },
    { additionalProperties: false },
  ),
);
export type CreateWebhookRequest = Static<typeof CreateWebhookRequestSchema>;

export const UpdateWebhookRequestSchema = named(
  "UpdateWebhookRequest",
  Type.Object(
    {
      url: Type.Optional(Type.String({ maxLength: MAX_WEBHOOK_URL_LENGTH })),
      events: Type.Optional(WebhookEvents),
      format: Type.Optional(WebhookFormatSchema),
      description: Type.Optional(Description),
      enabled: Type.Optional(
        Type.Boolean({
          description:
            "true re-enables a webhook that was disabled (its failure streak starts afresh); false disables it",
        }),
      ),
    },
    { additionalProperties: false, minProperties: 1 },
  ),
);
export type UpdateWebhookRequest = Static<typeof UpdateWebhookRequestSchema>;

export const WebhookSchema = named(
  "Webhook",
  Type.Object({
    id: Type.String({ description: "whk_…" }),
    url: Type.String(),
    events: Type.Array(EventTypeSchema),
    format: WebhookFormatSchema,
    description: Nullable(Type.String()),
    status: StringEnum(["enabled", "disabled"]),
    disabled_at: Nullable(Type.String({ format: "date-time" })),
    disabled_reason: Nullable(Type.String(), {
      description: "Why it was disabled (every delivery failed for 3 days, or by you); null while enabled",
    }),
    failing_since: Nullable(Type.String({ format: "date-time" }), {
      description: "Since when every delivery attempt has failed; null after a success. At 3 days it is disabled.",
    }),
    previous_secret_expires_at: Nullable(Type.String({ format: "date-time" }), {
      description: "After a rotation: until when the previous secret signs too; null when there is none",
    }),
    created_at: Type.String({ format: "date-time" }),
  }),
);
export type Webhook = Static<typeof WebhookSchema>;

const Secret = Type.String({
  pattern: "^whsec_[A-Za-z0-9+/]{43}=$",
  description:
    "The signing secret (whsec_ + base64 of 32 random bytes), for the standardwebhooks libraries. Shown only in this answer: keep it",
});

export const CreatedWebhookSchema = named(
  "CreatedWebhook",
  Type.Composite([WebhookSchema, Type.Object({ secret: Secret })], {
    description: "The new webhook with its signing secret, shown this once",
  }),
);
export type CreatedWebhook = Static<typeof CreatedWebhookSchema>;

export const RotatedSecretSchema = named(
  "RotatedSecret",
  Type.Object({
    webhook_id: Type.String(),
    secret: Secret,
    previous_secret_expires_at: Nullable(Type.String({ format: "date-time" }), {
      description:
        "Until then deliveries carry a signature with the previous secret too (webhook-signature lists both); null when the overlap is 0",
    }),
  }),
);
export type RotatedSecret = Static<typeof RotatedSecretSchema>;

export const WebhookListSchema = named(
  "WebhookList",
  Type.Object({
    data: Type.Array(WebhookSchema, { description: "Newest first" }),
    next_cursor: Nullable(Type.String(), {
      description: "Pass as before= for the next (older) page; null on the last page",
    }),
  }),
);
export type WebhookList = Static<typeof WebhookListSchema>;

export const DELIVERY_STATUSES = ["pending", "succeeded", "failed"] as const;

export const DeliverySchema = named(
  "WebhookDelivery",
  Type.Object({
    id: Type.String({ description: "dlv_…" }),
    webhook_id: Type.String(),
    event_id: Type.String({ description: "evt_…: the webhook-id header of every attempt" }),
    event_type: Type.String(),
    trigger: StringEnum(["event", "test", "redelivery"], {
      description: "What made it: an event, POST …/test, or POST …/redeliver",
    }),
    status: StringEnum(DELIVERY_STATUSES, {
      description: "pending while attempts remain; succeeded on a 2xx answer; failed when the last attempt failed",
    }),
    attempts: Count(),
    last_status: Nullable(Type.Integer({ minimum: 100, maximum: 599 }), {
      description: "The HTTP status of the last attempt; null when none was answered",
    }),
    last_error: Nullable(Type.String(), { description: "Why the last attempt failed; null after a success" }),
    last_response: Nullable(Type.String(), {
      description: "The start of the endpoint's last answer (at most 512 characters, control characters removed)",
    }),
    last_duration_ms: Nullable(Count()),
    last_attempt_at: Nullable(Type.String({ format: "date-time" })),
    next_attempt_at: Nullable(Type.String({ format: "date-time" }), {
      description: "When the next attempt is due; null when none is",
    }),
    created_at: Type.String({ format: "date-time" }),
  }),
);
export type Delivery = Static<typeof DeliverySchema>;

export const DeliveryListSchema = named(
  "WebhookDeliveryList",
  Type.Object({
    data: Type.Array(DeliverySchema, { description: "Newest first" }),
    next_cursor: Nullable(Type.String(), {
      description: "Pass as before= for the next (older) page; null on the last page",
    }),
  }),
);
export type DeliveryList = Static<typeof DeliveryListSchema>;
