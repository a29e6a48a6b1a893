/**
 * Stripe billing: Checkout for a first subscription, the Customer Portal for everything
 * after it (plan changes, payment methods, invoices, cancellation). The account's plan is
 * never changed here — only by the webhook (webhooks.service.ts), when Stripe says so.
 */
import type Stripe from "stripe";
import type { AccountDetails } from "../accounts/account.service.ts";
import { ApiProblem } from "../platform/http/problem.ts";
import type { Logger } from "../platform/logger.ts";
import type { PlanId } from "./plans.ts";
import type { BillingProvider, CheckoutUrls } from "./provider.ts";
import type { PriceBook } from "./stripe.client.ts";

/** Subscription statuses that keep a paid plan (past_due: while Stripe retries the payment). */
export const LIVE_STATUSES: ReadonlySet<string> = new Set(["active", "trialing", "past_due"]);

export class StripeBillingProvider implements BillingProvider {
  readonly mode = "stripe" as const;

  constructor(
    private readonly stripe: Stripe,
    private readonly prices: PriceBook,
    private readonly logger: Logger,
  ) {}

  purchasable(): PlanId[] {
    return this.prices.plans();
  }

  /**
   * A Checkout Session for the plan's price; an account that already pays goes to the
   * Customer Portal instead, where Stripe changes the existing subscription (with
   * proration) rather than starting a second one.
   */
  async checkout(account: AccountDetails, plan: PlanId, urls: CheckoutUrls): Promise<string> {
    const price = this.prices.price(plan);
    if (!price) throw new ApiProblem("invalid_request", "That plan cannot be bought here.");
    if (hasLiveSubscription(account)) {
      const back = new URL(urls.cancel);
      back.search = "";
      const portal = await this.portal(account, back.toString());
      if (portal) return portal;
    }
    const params: Stripe.Checkout.SessionCreateParams = {
      mode: "subscription",
      line_items: [{ price, quantity: 1 }],
      client_reference_id: account.id,
      metadata: { account_id: account.id },
      // Subscription events carry the account even before checkout.session.completed arrives.
      subscription_data: { metadata: { account_id: account.id } },
      success_url: urls.success,
      cancel_url: urls.cancel,
    };
    if (account.stripeCustomerId) params.customer = account.stripeCustomerId;
    else params.customer_email = account.email;
    const session = await this.call("checkout", () => this.stripe.checkout.sessions.create(params));
    if (!session.url) throw this.unavailable("checkout", new Error("Checkout Session without a url"));
    return session.url;
  }

  async portal(account: AccountDetails, returnUrl: string): Promise<string | null> {
    const customer = account.stripeCustomerId;
    if (!customer) return null;
    const session = await this.call("portal", () =>
      this.stripe.billingPortal.sessions.create({ customer, return_url: returnUrl }),
    );
    return session.url;
  }

  /** Stripe subscriptions are cancelled in the Customer Portal (the billing page offers no other way). */
  async cancel(): Promise<void> {
    throw new ApiProblem(
      "invalid_request",
      "Cancel your subscription in the Stripe Customer Portal: use “Manage subscription and invoices” on the billing page. You keep your plan until the end of the paid period.",
    );
  }

  private async call<T>(what: string, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw this.unavailable(what, error);
    }
  }

  private unavailable(what: string, error: unknown): ApiProblem {
    // Stripe's error type, code and request id identify the failure; its message may name the customer.
    const e = error as { type?: string; code?: string; statusCode?: number; requestId?: string; name?: string };
    this.logger.error("stripe request failed", {
      call: what,
      stripe_error: e.type ?? e.name,
      stripe_code: e.code,
      stripe_status: e.statusCode,
      stripe_request_id: e.requestId,
    });
    return new ApiProblem("unavailable", "The payment provider could not be reached. Try again in a minute.", {
      headers: { "retry-after": "30" },
    });
  }
}

function hasLiveSubscription(account: AccountDetails): boolean {
  return (
    account.stripeCustomerId !== null &&
    account.planId !== "free" &&
    LIVE_STATUSES.has(account.subscriptionStatus ?? "")
  );
}
