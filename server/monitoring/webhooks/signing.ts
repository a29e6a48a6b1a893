/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com/), made by the
 * `standardwebhooks` package — the same code receivers verify with:
 *
 *   webhook-id:        the event id (evt_…), the same for every retry and redelivery
 *   webhook-timestamp: Unix seconds of this attempt (receivers refuse ones > 5 min off)
 *   webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body"> for each secret,
 *                      space separated: during a rotation's overlap, the new secret's and
 *                      the previous one's, so receivers on either secret accept it
 */
import { Webhook } from "standardwebhooks";

export interface SignedHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

export function signDelivery(secrets: readonly string[], eventId: string, at: Date, body: string): SignedHeaders {
  if (secrets.length === 0) throw new Error("a delivery needs at least one secret to be signed with");
  return {
    "webhook-id": eventId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": secrets.map((secret) => new Webhook(secret).sign(eventId, at, body)).join(" "),
  };
}
