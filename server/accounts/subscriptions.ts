/**
 * Subscription state on the account: the plan, Stripe's status, the end of the paid period
 * and whether it is cancelled at that end. Every billing provider changes it through
 * `apply`, which ignores state older than what is already stored (webhooks arrive out of
 * order), and `expireCancelled` moves accounts whose cancelled period has ended back to Free
 * (docs/plans.md: cancelling keeps the plan to the end of the paid period).
 *
 * Takes a connection or an open transaction, so the Stripe webhook can record the event and
 * change the account in one transaction (server/billing/stripe-webhooks.service.ts).
 */

import type { PlanId } from "../billing/plans.ts";
import type { Queryable } from "../platform/db/database.ts";

export interface SubscriptionState {
  plan: PlanId;
  status: string;
  currentPeriodEnd: Date | null;
  cancelAtPeriodEnd: boolean;
  stripeCustomerId?: string | null;
  stripeSubscriptionId?: string | null;
  /** When this state was true at the source (the event's `created`); older states never overwrite newer ones. */
  asOf: Date;
}

/** What the webhook needs to know about an account before it decides (read under a row lock). */
export interface BillingRow {
  id: string;
  planId: PlanId;
  status: string | null;
  stripeCustomerId: string | null;
  stripeSubscriptionId: string | null;
  billingEventAt: Date | null;
}

export class SubscriptionService {
  constructor(private readonly sql: Queryable) {}

  /** Applies the state unless a newer one is already stored; true when it was applied. */
  async apply(accountId: string, state: SubscriptionState): Promise<boolean> {
    // A customer id already on the account is kept: one account, one Stripe customer.
    const rows = await this.sql`
      update accounts set
        plan_id = ${state.plan},
        subscription_status = ${state.status},
        current_period_end = ${state.currentPeriodEnd},
        cancel_at_period_end = ${state.cancelAtPeriodEnd},
        stripe_customer_id = coalesce(stripe_customer_id, ${state.stripeCustomerId ?? null}),
        stripe_subscription_id = coalesce(${state.stripeSubscriptionId ?? null}, stripe_subscription_id),
        billing_event_at = ${state.asOf},
        updated_at = now()
      where id = ${accountId} and (billing_event_at is null or billing_event_at <= ${state.asOf})
      returning id`;
    return rows.length > 0;
  }

  /**
   * Links a Stripe customer (and its subscription) to an account without touching its plan
   * (checkout completed). The subscription id is only replaced by one at least as new as the
   * state already stored, so a late checkout event cannot point the account at an old subscription.
   */
  async linkCustomer(accountId: string, customerId: string, subscriptionId: string | null, asOf: Date): Promise<void> {
    await this.sql`
      update accounts set
        stripe_customer_id = coalesce(stripe_customer_id, ${customerId}),
        stripe_subscription_id = case
          when stripe_subscription_id is null or billing_event_at is null or billing_event_at <= ${asOf}
          then coalesce(${subscriptionId}, stripe_subscription_id)
          else stripe_subscription_id end,
        updated_at = now()
      where id = ${accountId}`;
  }

  /**
   * A renewal payment failed: the status becomes past_due and the plan stays (Stripe retries
   * the payment; its final verdict arrives as a subscription event). Does not advance the
   * stored event time, so a subscription event from just before still applies its period.
   */
  async markPastDue(accountId: string, asOf: Date): Promise<boolean> {
    const rows = await this.sql`
      update accounts set subscription_status = 'past_due', updated_at = now()
      where id = ${accountId} and plan_id <> 'free'
        and (subscription_status is null or subscription_status in ('active', 'trialing', 'past_due'))
        and (billing_event_at is null or billing_event_at <= ${asOf})
      returning id`;
    return rows.length > 0;
  }

  async accountForCustomer(customerId: string): Promise<string | undefined> {
    const [row] = await this.sql<{ id: string }[]>`select id from accounts where stripe_customer_id = ${customerId}`;
    return row?.id;
  }

  /** The account's billing state, locked until the surrounding transaction ends (call inside one). */
  async lockForUpdate(accountId: string): Promise<BillingRow | undefined> {
    const [row] = await this.sql<
      {
        id: string;
        plan_id: PlanId;
        subscription_status: string | null;
        stripe_customer_id: string | null;
        stripe_subscription_id: string | null;
        billing_event_at: Date | null;
      }[]
    >`
      select id, plan_id, subscription_status, stripe_customer_id, stripe_subscription_id, billing_event_at
      from accounts where id = ${accountId} for update`;
    if (!row) return undefined;
    return {
      id: row.id,
      planId: row.plan_id,
      status: row.subscription_status,
      stripeCustomerId: row.stripe_customer_id,
      stripeSubscriptionId: row.stripe_subscription_id,
      billingEventAt: row.billing_event_at,
    };
  }

  /** Keeps the plan until the period ends (test mode's "cancel"; Stripe does it in its portal). */
  async cancelAtPeriodEnd(accountId: string, periodEnd: Date): Promise<void> {
    await this.sql`
      update accounts set cancel_at_period_end = true,
        current_period_end = coalesce(current_period_end, ${periodEnd}), updated_at = now()
      where id = ${accountId} and plan_id <> 'free'`;
  }

  /** Cancelled plans whose paid period is over fall back to Free. */
  async expireCancelled(now = new Date()): Promise<number> {
    const rows = await this.sql`
      update accounts set plan_id = 'free', subscription_status = 'canceled', cancel_at_period_end = false,
        updated_at = now()
      where cancel_at_period_end and current_period_end is not null and current_period_end <= ${now}
      returning id`;
    return rows.length;
  }
}
