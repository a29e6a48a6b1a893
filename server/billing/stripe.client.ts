/**
 * The Stripe SDK client, built once from the configuration. STRIPE_API_BASE points it at
 * another origin (the tests' local stub of Stripe's REST API); unset, it talks to Stripe.
 *
 * Under Bun the `stripe` package loads its web build (fetch for HTTP, SubtleCrypto for
 * webhook signatures), so signatures are checked with `constructEventAsync`.
 */
import Stripe from "stripe";
import { isPlanId, type PlanId } from "./plans.ts";
import type { StripeConfig } from "./settings.ts";

export function createStripeClient(config: StripeConfig): Stripe {
  const options: Stripe.StripeConfig = {
    // Safe retries (the SDK adds idempotency keys to POSTs); a browser waits on checkout and portal.
    maxNetworkRetries: 2,
    timeout: 20_000,
    appInfo: { name: "wpreport" },
  };
  if (config.apiBase) {
    const base = new URL(config.apiBase);
    const protocol = base.protocol === "http:" ? "http" : "https";
    options.protocol = protocol;
    options.host = base.hostname;
    options.port = base.port || (protocol === "http" ? 80 : 443);
  }
  return new Stripe(config.secretKey, options);
}

/** STRIPE_PRICES read both ways: plan → price for Checkout, price → plan for webhooks. */
export class PriceBook {
  private readonly byPrice = new Map<string, PlanId>();
  private readonly byPlan = new Map<PlanId, string>();

  constructor(prices: Partial<Record<string, string>>) {
    for (const [plan, price] of Object.entries(prices)) {
      if (!price || !isPlanId(plan) || plan === "free") continue;
      this.byPlan.set(plan, price);
      this.byPrice.set(price, plan);
    }
  }

  price(plan: PlanId): string | undefined {
    return this.byPlan.get(plan);
  }

  plan(price: string): PlanId | undefined {
    return this.byPrice.get(price);
  }

  plans(): PlanId[] {
    return [...this.byPlan.keys()];
  }
}
