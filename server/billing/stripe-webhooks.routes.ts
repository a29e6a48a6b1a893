/**
 * POST /webhooks/stripe — Stripe's event deliveries. The body is read raw (Elysia's parser
 * is off for this route: the signature covers the exact bytes), capped at MAX_BODY_BYTES,
 * and handed to the webhook service. Answers: 200 processed, repeated or ignored; 400
 * problem+json for a missing or wrong signature (nothing changed); 503 when the event cannot
 * be processed yet, so that Stripe delivers it again.
 */
import { Elysia } from "elysia";
import { readBodyCapped } from "../platform/http/json-body.ts";
import { jsonResponse } from "../platform/http/json-response.ts";
import { ApiProblem } from "../platform/http/problem.ts";
import type { StripeWebhookService } from "./stripe-webhooks.service.ts";

export const STRIPE_WEBHOOK_PATH = "/webhooks/stripe";

export function stripeWebhookRoutes(deps: {
  /** Absent when Stripe is not configured: deliveries are then 404. */
  service: StripeWebhookService | undefined;
  maxBodyBytes: number;
}) {
  const { service } = deps;
  return new Elysia({ name: "stripe-webhooks" }).post(
    STRIPE_WEBHOOK_PATH,
    async ({ request }) => {
      if (!service) throw new ApiProblem("not_found", "Stripe billing is not configured on this server.");
      const body = await readBodyCapped(request, deps.maxBodyBytes);
      const result = await service.handle(body, request.headers.get("stripe-signature"));
      switch (result.kind) {
        case "bad_signature":
          throw new ApiProblem("invalid_request", "The Stripe-Signature header is missing or does not match the body.");
        case "retry":
          throw new ApiProblem("unavailable", "This event cannot be processed yet; Stripe will deliver it again.", {
            headers: { "retry-after": "60" },
          });
        default:
          return jsonResponse({ received: true, event: result.eventId, result: result.kind });
      }
    },
    { parse: "none" },
  );
}
