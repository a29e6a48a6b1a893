/**
 * Stripe webhook events → subscription state on the account.
 *
 * - Verified first: the signature over the raw body (`constructEventAsync`, Stripe's
 *   default 5-minute tolerance against replays).
 * - Exactly once: the event id is inserted into `stripe_events` in the same transaction as
 *   the state change. A repeated id finds its row and is only acknowledged; a crash before
 *   the commit leaves neither, and Stripe's retry processes the event afresh.
 * - In order: every state carries the event's `created`; `SubscriptionService.apply`
 *   ignores a state older than the one stored, and the account row is locked while an event
 *   decides, so concurrent events for one account take turns.
 *
 * Rules (docs/decisions.md "Billing"):
 * - checkout.session.completed links the Stripe customer and subscription to the account
 *   (`client_reference_id`); it does not change the plan — subscription events do.
 * - customer.subscription.created|updated: active/trialing/past_due → the plan of its price
 *   (STRIPE_PRICES), the period end and the cancellation flag; `incomplete` (first payment
 *   still pending) changes nothing; any other status (unpaid, paused, canceled,
 *   incomplete_expired) → Free.
 * - customer.subscription.deleted → Free. The end of a subscription other than the one the
 *   account is on is ignored (a replaced, older subscription ending must not downgrade).
 * - invoice.payment_failed → status past_due, plan kept; Stripe's retries end in a
 *   subscription event (deleted or unpaid → Free, or active again).
 * - Other event types are acknowledged and ignored.
 */
import type Stripe from "stripe";
import { type BillingRow, SubscriptionService } from "../accounts/subscriptions.ts";
import type { Sql } from "../platform/db/database.ts";
import type { Logger } from "../platform/logger.ts";
import type { PlanId } from "./plans.ts";
import type { PriceBook } from "./stripe.client.ts";
import { LIVE_STATUSES } from "./stripe.provider.ts";

export const HANDLED_EVENTS = [
  "checkout.session.completed",
  "customer.subscription.created",
  "customer.subscription.updated",
  "customer.subscription.deleted",
  "invoice.payment_failed",
] as const;
const HANDLED: ReadonlySet<string> = new Set(HANDLED_EVENTS);

/** Statuses after which a subscription never becomes live again. */
const ENDED_STATUSES: ReadonlySet<string> = new Set(["canceled", "incomplete_expired"]);

export type WebhookResult =
  | { kind: "bad_signature" }
  | { kind: "processed"; eventId: string; type: string; outcome: string; accountId?: string }
  | { kind: "duplicate"; eventId: string; type: string }
  | { kind: "ignored"; eventId: string; type: string }
  /** Not processable yet (e.g. a price missing from STRIPE_PRICES): answer non-2xx so Stripe retries. */
  | { kind: "retry"; eventId: string; type: string; reason: string };

class RetryLater extends Error {}

interface Decision {
  outcome: string;
  accountId?: string;
}

export class StripeWebhookService {
  constructor(
    private readonly deps: {
      stripe: Stripe;
      webhookSecret: string;
      prices: PriceBook;
      sql: Sql;
      logger: Logger;
    },
  ) {}

  async handle(rawBody: Uint8Array, signature: string | null): Promise<WebhookResult> {
    const { logger } = this.deps;
    if (!signature) {
      logger.warn("stripe webhook without a signature");
      return { kind: "bad_signature" };
    }
    let event: Stripe.Event;
    try {
      event = await this.deps.stripe.webhooks.constructEventAsync(rawBody, signature, this.deps.webhookSecret);
    } catch {
      // Wrong STRIPE_WEBHOOK_SECRET, a changed body or a replay outside the tolerance; never log the body.
      logger.warn("stripe webhook signature rejected");
      return { kind: "bad_signature" };
    }
    const base = { eventId: event.id, type: event.type };
    if (!HANDLED.has(event.type)) {
      logger.info("stripe event ignored", { event_id: event.id, event_type: event.type });
      return { kind: "ignored", ...base };
    }

    try {
      const result = await this.deps.sql.begin(async (tx) => {
        const [fresh] = await tx`
          insert into stripe_events (id, type, created_at) values (${event.id}, ${event.type}, ${new Date(event.created * 1000)})
          on conflict (id) do nothing returning id`;
        if (!fresh) return undefined;
        return this.process(new SubscriptionService(tx), event);
      });
      if (!result) {
        logger.info("stripe event repeated", { event_id: event.id, event_type: event.type });
        return { kind: "duplicate", ...base };
      }
      logger.info("stripe event processed", {
        event_id: event.id,
        event_type: event.type,
        outcome: result.outcome,
        account_id: result.accountId,
      });
      return { kind: "processed", ...base, ...result };
    } catch (error) {
      if (!(error instanceof RetryLater)) throw error;
      logger.error("stripe event not processable yet", {
        event_id: event.id,
        event_type: event.type,
        reason: error.message,
      });
      return { kind: "retry", ...base, reason: error.message };
    }
  }

  private process(subs: SubscriptionService, event: Stripe.Event): Promise<Decision> {
    const asOf = new Date(event.created * 1000);
    switch (event.type) {
      case "checkout.session.completed":
        return this.checkoutCompleted(subs, event.data.object, asOf);
      case "customer.subscription.created":
      case "customer.subscription.updated":
        return this.subscriptionChanged(subs, event.data.object, asOf, false);
      case "customer.subscription.deleted":
        return this.subscriptionChanged(subs, event.data.object, asOf, true);
      case "invoice.payment_failed":
        return this.paymentFailed(subs, event.data.object, asOf);
      default:
        return Promise.resolve({ outcome: "ignored: event type" });
    }
  }

  private async checkoutCompleted(
    subs: SubscriptionService,
    session: Stripe.Checkout.Session,
    asOf: Date,
  ): Promise<Decision> {
    if (session.mode !== "subscription") return { outcome: "ignored: not a subscription checkout" };
    const accountId = session.client_reference_id ?? session.metadata?.account_id;
    const account = accountId ? await subs.lockForUpdate(accountId) : undefined;
    if (!account) return { outcome: "ignored: no such account" };
    const customer = idOf(session.customer);
    if (!customer) return { outcome: "ignored: no customer", accountId: account.id };
    const owner = await subs.accountForCustomer(customer);
    if (owner && owner !== account.id) {
      this.deps.logger.error("stripe customer belongs to another account", {
        account_id: account.id,
        other_account_id: owner,
      });
      return { outcome: "ignored: customer linked to another account", accountId: account.id };
    }
    if (account.stripeCustomerId && account.stripeCustomerId !== customer) {
      this.deps.logger.warn("account already has another stripe customer", { account_id: account.id });
    }
    await subs.linkCustomer(account.id, customer, idOf(session.subscription), asOf);
    return { outcome: "customer linked", accountId: account.id };
  }

  private async subscriptionChanged(
    subs: SubscriptionService,
    sub: Stripe.Subscription,
    asOf: Date,
    deleted: boolean,
  ): Promise<Decision> {
    const status = deleted ? "canceled" : sub.status;
    const live = LIVE_STATUSES.has(status);
    const plan = this.planOf(sub);
    const customer = idOf(sub.customer);

    const account = await this.accountFor(subs, sub.metadata?.account_id, customer);
    if (!account) {
      // Not ours (another product on the same Stripe account) or an account since deleted.
      if (plan) this.deps.logger.warn("stripe subscription without a known account", { subscription_id: sub.id });
      return { outcome: "ignored: no account" };
    }
    const accountId = account.id;
    if (status === "incomplete") return { outcome: "ignored: first payment pending", accountId };
    if (account.billingEventAt && asOf < account.billingEventAt)
      return { outcome: "ignored: older than stored state", accountId };
    const current = account.stripeSubscriptionId;
    if (!live && current && current !== sub.id) return { outcome: "ignored: another subscription ended", accountId };
    if (
      live &&
      current === sub.id &&
      ENDED_STATUSES.has(account.status ?? "") &&
      account.billingEventAt?.getTime() === asOf.getTime()
    ) {
      // Same second as the end of this subscription: it cannot come back, the end wins.
      return { outcome: "ignored: subscription already ended", accountId };
    }

    const owner = customer ? await subs.accountForCustomer(customer) : undefined;
    const stripeCustomerId = owner === undefined || owner === accountId ? customer : null;
    if (!live) {
      const applied = await subs.apply(accountId, {
        plan: "free",
        status,
        currentPeriodEnd: null,
        cancelAtPeriodEnd: false,
        stripeCustomerId,
        stripeSubscriptionId: sub.id,
        asOf,
      });
      return { outcome: applied ? `plan free (${status})` : "ignored: older than stored state", accountId };
    }
    if (!plan) throw new RetryLater(`subscription ${sub.id} has no price listed in STRIPE_PRICES`);
    const applied = await subs.apply(accountId, {
      plan,
      status,
      // A cancellation date (cancel_at) is when the plan ends; otherwise the paid period's end.
      currentPeriodEnd: toDate(typeof sub.cancel_at === "number" ? sub.cancel_at : periodEnd(sub)),
      cancelAtPeriodEnd: sub.cancel_at_period_end === true || typeof sub.cancel_at === "number",
      stripeCustomerId,
      stripeSubscriptionId: sub.id,
      asOf,
    });
    return { outcome: applied ? `plan ${plan} (${status})` : "ignored: older than stored state", accountId };
  }

  private async paymentFailed(subs: SubscriptionService, invoice: Stripe.Invoice, asOf: Date): Promise<Decision> {
    const details = invoice.parent?.subscription_details;
    // API versions before 2025-03-31 put the subscription on the invoice itself.
    const subscriptionId =
      idOf(details?.subscription) ?? idOf((invoice as unknown as { subscription?: unknown }).subscription);
    if (!subscriptionId) return { outcome: "ignored: not a subscription invoice" };
    const account = await this.accountFor(subs, details?.metadata?.account_id, idOf(invoice.customer));
    if (!account) return { outcome: "ignored: no account" };
    const accountId = account.id;
    if (account.stripeSubscriptionId && account.stripeSubscriptionId !== subscriptionId) {
      return { outcome: "ignored: another subscription", accountId };
    }
    const marked = await subs.markPastDue(accountId, asOf);
    return {
      outcome: marked ? "status past_due, plan kept" : "ignored: no paid plan or older than stored state",
      accountId,
    };
  }

  /** The account an object belongs to: our metadata first (set at checkout), else the linked customer. */
  private async accountFor(
    subs: SubscriptionService,
    metadataAccountId: string | undefined,
    customer: string | null,
  ): Promise<BillingRow | undefined> {
    if (metadataAccountId) return subs.lockForUpdate(metadataAccountId);
    const id = customer ? await subs.accountForCustomer(customer) : undefined;
    return id ? subs.lockForUpdate(id) : undefined;
  }

  private planOf(sub: Stripe.Subscription): PlanId | undefined {
    for (const item of sub.items?.data ?? []) {
      const plan = item.price?.id ? this.deps.prices.plan(item.price.id) : undefined;
      if (plan) return plan;
    }
    return undefined;
  }
}

/** The paid period's end: on the subscription items since API version 2025-03-31, on the subscription before. */
function periodEnd(sub: Stripe.Subscription): number | null {
  const ends = (sub.items?.data ?? [])
    .map((item) => item.current_period_end)
    .filter((end): end is number => typeof end === "number");
  if (ends.length > 0) return Math.max(...ends);
  const legacy = (sub as unknown as { current_period_end?: unknown }).current_period_end;
  return typeof legacy === "number" ? legacy : null;
}

function toDate(seconds: number | null): Date | null {
  return seconds === null ? null : new Date(seconds * 1000);
}

function idOf(value: unknown): string | null {
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && typeof (value as { id?: unknown }).id === "string")
    return (value as { id: string }).id;
  return null;
}
