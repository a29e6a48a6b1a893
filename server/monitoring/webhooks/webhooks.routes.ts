/**
 * HTTP surface of webhooks: /api/webhooks… Each operation is declared once (schemas, answers,
 * errors): the route validates with it and the OpenAPI document is written from it.
 */
import { Type } from "@sinclair/typebox";
import { Elysia } from "elysia";
import {
  CreatedWebhookSchema,
  CreateWebhookRequestSchema,
  DELIVERY_STATUSES,
  DeliveryListSchema,
  DeliverySchema,
  RotatedSecretSchema,
  UpdateWebhookRequestSchema,
  WebhookListSchema,
  WebhookSchema,
} from "../../../shared/monitoring-api.ts";
import { StringEnum } from "../../../shared/schema.ts";
import { type ApiGuardDeps, apiGuard } from "../../access/api-guard.plugin.ts";
import type { IdempotencyService } from "../../access/idempotency.service.ts";
import type { ApiModule } from "../../platform/http/api-module.ts";
import { jsonDocument, jsonResponse } from "../../platform/http/json-response.ts";
import type { ApiOperation } from "../../platform/http/openapi.ts";
import { deleted, idParam, olderPageDocument, olderPageQuery } from "../../platform/http/resource-routes.ts";
import type { ApiContext } from "../../start/app.ts";
import { answer, emptyBodyAllowed, IDEMPOTENCY, IDEMPOTENCY_ERRORS, idempotent, queryOf } from "../route-helpers.ts";
import {
  DEFAULT_PAGE,
  DEFAULT_ROTATION_OVERLAP_HOURS,
  MAX_PAGE,
  MAX_ROTATION_OVERLAP_HOURS,
  type WebhookService,
} from "./webhooks.service.ts";

const WEBHOOK_ID = Type.Object(idParam("webhook_id", "webhook", "whk"));
const DELIVERY_ID = Type.Object({
  ...idParam("webhook_id", "webhook", "whk"),
  ...idParam("delivery_id", "delivery", "dlv"),
});
const paging = (what: string) => olderPageQuery(what, { max: MAX_PAGE, default: DEFAULT_PAGE });

export const createWebhookOperation = {
  method: "post",
  path: "/api/webhooks",
  operationId: "createWebhook",
  summary: "Create a webhook",
  description:
    "Subscribes an endpoint to events. Answers 201 with the webhook and its signing `secret` (whsec_…), shown only in this answer. Every delivery is a signed POST (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature), retried with backoff; the URL must be a public address (the target policy of analyses), checked now and at every delivery (docs/monitoring.md).",
  tag: "Webhooks",
  auth: "bearer",
  headers: IDEMPOTENCY,
  body: CreateWebhookRequestSchema,
  responses: {
    201: {
      description: "The webhook, with its secret (shown once)",
      content: { "application/json": CreatedWebhookSchema },
      headers: ["Location", "Idempotent-Replayed"],
    },
  },
  errors: [
    "invalid_request",
    "unsupported_media_type",
    "invalid_url",
    "url_not_allowed",
    "webhook_limit_reached",
    "webhooks_unavailable",
    ...IDEMPOTENCY_ERRORS,
  ],
} as const satisfies ApiOperation;

export const listWebhooksOperation = {
  method: "get",
  path: "/api/webhooks",
  operationId: "listWebhooks",
  summary: "List webhooks",
  description:
    "Your webhooks, newest first. Page with `before=<next_cursor>`; the Link header has the next page's URL.",
  tag: "Webhooks",
  auth: "bearer",
  query: Type.Object(paging("webhook")),
  responses: {
    200: { description: "A page of webhooks", content: { "application/json": WebhookListSchema }, headers: ["Link"] },
  },
  errors: ["invalid_request"],
} as const satisfies ApiOperation;

export const getWebhookOperation = {
  method: "get",
  path: "/api/webhooks/:webhook_id",
  operationId: "getWebhook",
  summary: "Get a webhook",
  description:
    "One of your webhooks (never its secret), with its state: `disabled_reason` says why it was disabled, `failing_since` since when its deliveries fail.",
  tag: "Webhooks",
  auth: "bearer",
  params: WEBHOOK_ID,
  responses: { 200: { description: "The webhook", content: { "application/json": WebhookSchema } } },
  errors: ["not_found"],
} as const satisfies ApiOperation;

export const updateWebhookOperation = {
  method: "patch",
  path: "/api/webhooks/:webhook_id",
  operationId: "updateWebhook",
  summary: "Change a webhook",
  description:
    "Changes the fields given: `url` (checked as at creation), `events`, `format`, `description`; `enabled: true` re-enables a disabled webhook (its failure streak starts afresh), `enabled: false` disables it.",
  tag: "Webhooks",
  auth: "bearer",
  params: WEBHOOK_ID,
  body: UpdateWebhookRequestSchema,
  responses: { 200: { description: "The webhook as changed", content: { "application/json": WebhookSchema } } },
  errors: ["invalid_request", "unsupported_media_type", "not_found", "invalid_url", "url_not_allowed"],
} as const satisfies ApiOperation;

export const deleteWebhookOperation = {
  method: "delete",
  path: "/api/webhooks/:webhook_id",
  operationId: "deleteWebhook",
  summary: "Delete a webhook",
  description: "Deletes the webhook and its delivery log; attempts still pending are not made.",
  tag: "Webhooks",
  auth: "bearer",
  params: WEBHOOK_ID,
  responses: { 204: { description: "Deleted" } },
  errors: ["not_found"],
} as const satisfies ApiOperation;

export const testWebhookOperation = {
  method: "post",
  path: "/api/webhooks/:webhook_id/test",
  operationId: "testWebhook",
  summary: "Send a test event",
  description:
    "Sends a signed `webhook.test` event to this webhook only (even a disabled one), once: a test is not retried. Answers 202 with the queued delivery; follow it at its Location or in the delivery log. At most 5 tests and redeliveries per webhook and 20 per account in a minute; past that, 429 `rate_limited` with `Retry-After`.",
  tag: "Webhooks",
  auth: "bearer",
  params: WEBHOOK_ID,
  headers: IDEMPOTENCY,
  responses: {
    202: {
      description: "The delivery, queued",
      content: { "application/json": DeliverySchema },
      headers: ["Location", "Idempotent-Replayed"],
    },
  },
  errors: ["not_found", "rate_limited", ...IDEMPOTENCY_ERRORS],
} as const satisfies ApiOperation;

export const rotateWebhookSecretOperation = {
  method: "post",
  path: "/api/webhooks/:webhook_id/rotate-secret",
  operationId: "rotateWebhookSecret",
  summary: "Rotate a webhook's secret",
  description: `A new signing secret, shown only in this answer. For \`overlap_hours\` (default ${DEFAULT_ROTATION_OVERLAP_HOURS}) deliveries carry a signature with the previous secret too — webhook-signature lists both, space separated — so your receiver can switch without missing one; \`overlap_hours=0\` ends the previous secret at once (a leaked secret). Rotating again during an overlap drops the older secret.`,
  tag: "Webhooks",
  auth: "bearer",
  params: WEBHOOK_ID,
  headers: IDEMPOTENCY,
  query: Type.Object({
    overlap_hours: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_ROTATION_OVERLAP_HOURS,
        default: DEFAULT_ROTATION_OVERLAP_HOURS,
        description: "How long the previous secret keeps signing",
      }),
    ),
  }),
  responses: {
    200: {
      description: "The new secret (shown once)",
      content: { "application/json": RotatedSecretSchema },
      headers: ["Idempotent-Replayed"],
    },
  },
  errors: ["invalid_request", "not_found", "webhooks_unavailable", ...IDEMPOTENCY_ERRORS],
} as const satisfies ApiOperation;

export const listDeliveriesOperation = {
  method: "get",
  path: "/api/webhooks/:webhook_id/deliveries",
  operationId: "listWebhookDeliveries",
  summary: "The delivery log",
  description:
    "The webhook's deliveries, newest first: status, attempts, the last answer's status and start, the next attempt. Kept 30 days. Page with `before=<next_cursor>`.",
  tag: "Webhooks",
  auth: "bearer",
  params: WEBHOOK_ID,
  query: Type.Object({ ...paging("delivery"), status: Type.Optional(StringEnum(DELIVERY_STATUSES)) }),
  responses: {
    200: {
      description: "A page of deliveries",
      content: { "application/json": DeliveryListSchema },
      headers: ["Link"],
    },
  },
  errors: ["invalid_request", "not_found"],
} as const satisfies ApiOperation;

export const getDeliveryOperation = {
  method: "get",
  path: "/api/webhooks/:webhook_id/deliveries/:delivery_id",
  operationId: "getWebhookDelivery",
  summary: "Get a delivery",
  description: "One delivery of the webhook, as in the log.",
  tag: "Webhooks",
  auth: "bearer",
  params: DELIVERY_ID,
  responses: { 200: { description: "The delivery", content: { "application/json": DeliverySchema } } },
  errors: ["not_found"],
} as const satisfies ApiOperation;

export const redeliverOperation = {
  method: "post",
  path: "/api/webhooks/:webhook_id/deliveries/:delivery_id/redeliver",
  operationId: "redeliverWebhookDelivery",
  summary: "Redeliver",
  description:
    "Sends the delivery's event again to the webhook's current URL, as a new delivery with its own retries and the same webhook-id header (receivers that drop duplicates by it drop this one too). Answers 202 with the new delivery. At most 5 tests and redeliveries per webhook and 20 per account in a minute; past that, 429 `rate_limited` with `Retry-After`.",
  tag: "Webhooks",
  auth: "bearer",
  params: DELIVERY_ID,
  headers: IDEMPOTENCY,
  responses: {
    202: {
      description: "The new delivery, queued",
      content: { "application/json": DeliverySchema },
      headers: ["Location", "Idempotent-Replayed"],
    },
  },
  errors: ["not_found", "rate_limited", ...IDEMPOTENCY_ERRORS],
} as const satisfies ApiOperation;

export interface WebhooksRouteDeps extends ApiGuardDeps {
  webhooks: WebhookService;
  idempotency: IdempotencyService;
  baseUrlFor: (request: Request) => string;
}

export function webhooksRoutes(deps: WebhooksRouteDeps) {
  const { webhooks, idempotency } = deps;
  const deliveryUrl = (request: Request, webhookId: string, deliveryId: string) =>
    `${deps.baseUrlFor(request)}/api/webhooks/${webhookId}/deliveries/${deliveryId}`;
  // Two groups, for the two ways of reading a body: JSON (create, change; the GETs read none),
  // and none (DELETE and the POSTs that act on an existing webhook or delivery).
  const withJson = new Elysia()
    .use(apiGuard(deps))
    .post(
      "/webhooks",
      async ({ body, principal, headers, request }) => {
        const result = await idempotent(
          idempotency,
          principal.accountId,
          headers["idempotency-key"],
          { operation: createWebhookOperation.operationId, body },
          async () => {
            const created = await webhooks.create(principal.accountId, body);
            return { status: 201, id: created.id, body: created };
          },
          async (id) => {
            const { webhook, secret } = await webhooks.currentSecret(principal.accountId, id);
            return { ...webhook, secret };
          },
        );
        return answer(result, { location: `${deps.baseUrlFor(request)}/api/webhooks/${result.id}` });
      },
      { body: createWebhookOperation.body, headers: createWebhookOperation.headers },
    )
    .get("/webhooks", async ({ principal, query: raw, request }) => {
      const query = queryOf(listWebhooksOperation.query, raw);
      const page = await webhooks.list(principal.accountId, query);
      return olderPageDocument(page, `${deps.baseUrlFor(request)}/api/webhooks`, query);
    })
    .get(
      "/webhooks/:webhook_id",
      async ({ principal, params }) => jsonDocument(await webhooks.get(principal.accountId, params.webhook_id)),
      { params: getWebhookOperation.params },
    )
    .patch(
      "/webhooks/:webhook_id",
      async ({ principal, params, body }) =>
        jsonResponse(await webhooks.update(principal.accountId, params.webhook_id, body)),
      { params: updateWebhookOperation.params, body: updateWebhookOperation.body },
    )
    .get(
      "/webhooks/:webhook_id/deliveries",
      async ({ principal, params, query: raw, request }) => {
        const query = queryOf(listDeliveriesOperation.query, raw);
        const page = await webhooks.deliveries(principal.accountId, params.webhook_id, query);
        return olderPageDocument(
          page,
          `${deps.baseUrlFor(request)}/api/webhooks/${params.webhook_id}/deliveries`,
          query,
        );
      },
      { params: listDeliveriesOperation.params },
    )
    .get(
      "/webhooks/:webhook_id/deliveries/:delivery_id",
      async ({ principal, params }) =>
        jsonDocument(await webhooks.delivery(principal.accountId, params.webhook_id, params.delivery_id)),
      { params: getDeliveryOperation.params },
    );
  const withoutBody = new Elysia()
    .use(emptyBodyAllowed("webhooks"))
    .use(apiGuard(deps))
    .delete(
      "/webhooks/:webhook_id",
      async ({ principal, params }) => {
        await webhooks.remove(principal.accountId, params.webhook_id);
        return deleted();
      },
      { params: deleteWebhookOperation.params },
    )
    .post(
      "/webhooks/:webhook_id/test",
      async ({ principal, params, headers, request }) => {
        const result = await idempotent(
          idempotency,
          principal.accountId,
          headers["idempotency-key"],
          { operation: testWebhookOperation.operationId, params },
          async () => {
            const delivery = await webhooks.test(principal.accountId, params.webhook_id);
            return { status: 202, id: delivery.id, body: delivery };
          },
          (id) => webhooks.delivery(principal.accountId, params.webhook_id, id),
        );
        return answer(result, { location: deliveryUrl(request, params.webhook_id, result.id) });
      },
      { params: testWebhookOperation.params, headers: testWebhookOperation.headers },
    )
    .post(
      "/webhooks/:webhook_id/rotate-secret",
      async ({ principal, params, headers, query: raw }) => {
        const query = queryOf(rotateWebhookSecretOperation.query, raw);
        const overlap = query.overlap_hours ?? DEFAULT_ROTATION_OVERLAP_HOURS;
        const result = await idempotent(
          idempotency,
          principal.accountId,
          headers["idempotency-key"],
          { operation: rotateWebhookSecretOperation.operationId, params, overlap },
          async () => {
            const rotated = await webhooks.rotateSecret(principal.accountId, params.webhook_id, overlap);
            return { status: 200, id: rotated.webhook_id, body: rotated };
          },
          async (id) => {
            const { webhook: _webhook, ...rotated } = await webhooks.currentSecret(principal.accountId, id);
            return rotated;
          },
        );
        return answer(result);
      },
      { params: rotateWebhookSecretOperation.params, headers: rotateWebhookSecretOperation.headers },
    )
    .post(
      "/webhooks/:webhook_id/deliveries/:delivery_id/redeliver",
      async ({ principal, params, headers, request }) => {
        const result = await idempotent(
          idempotency,
          principal.accountId,
          headers["idempotency-key"],
          { operation: redeliverOperation.operationId, params },
          async () => {
            const delivery = await webhooks.redeliver(principal.accountId, params.webhook_id, params.delivery_id);
            return { status: 202, id: delivery.id, body: delivery };
          },
          (id) => webhooks.delivery(principal.accountId, params.webhook_id, id),
        );
        return answer(result, { location: deliveryUrl(request, params.webhook_id, result.id) });
      },
      { params: redeliverOperation.params, headers: redeliverOperation.headers },
    );
  return new Elysia({ prefix: "/api" }).use(withJson).use(withoutBody);
}

/** The webhooks API for app.ts: its operations and its routes. */
export const webhooksApi: ApiModule<ApiContext> = {
  name: "webhooks",
  operations: [
    createWebhookOperation,
    listWebhooksOperation,
    getWebhookOperation,
    updateWebhookOperation,
    deleteWebhookOperation,
    testWebhookOperation,
    rotateWebhookSecretOperation,
    listDeliveriesOperation,
    getDeliveryOperation,
    redeliverOperation,
  ],
  routes: ({ guard, services, baseUrlFor }) =>
    webhooksRoutes({
      ...guard,
      webhooks: services.monitoring.webhooks,
      idempotency: services.idempotency,
      baseUrlFor,
    }),
};
