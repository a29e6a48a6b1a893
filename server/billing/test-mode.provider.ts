/**
 * Test-mode billing (no Stripe keys): plan changes apply at once and no payment is taken.
 * The web interface says so on every billing page. The paid period is the current quota
 * period, so a cancelled plan falls back to Free when the month ends, as with Stripe.
 */
import type { AccountDetails } from "../accounts/account.service.ts";
import type { SubscriptionService } from "../accounts/subscriptions.ts";
import { quotaPeriod } from "../platform/quota-period.ts";
import { PLAN_IDS, type PlanId } from "./plans.ts";
import type { BillingProvider, CheckoutUrls } from "./provider.ts";

export class TestModeBillingProvider implements BillingProvider {
  readonly mode = "test" as const;

  constructor(private readonly subscriptions: SubscriptionService) {}

  purchasable(): PlanId[] {
    return PLAN_IDS.filter((plan) => plan !== "free");
  }

  async checkout(account: AccountDetails, plan: PlanId, urls: CheckoutUrls): Promise<string> {
    await this.subscriptions.apply(account.id, {
      plan,
      status: "active",
      currentPeriodEnd: quotaPeriod().end,
      cancelAtPeriodEnd: false,
      asOf: new Date(),
    });
    return urls.success;
  }

  async portal(): Promise<string | null> {
    return null;
  }

  async cancel(account: AccountDetails): Promise<void> {
    await this.subscriptions.cancelAtPeriodEnd(account.id, quotaPeriod().end);
  }
}
