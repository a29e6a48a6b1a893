/**
 * The settings of billing: Stripe's keys and prices, and how plans change (BILLING_MODE).
 * Read with the platform's shared parsers; start/config.ts composes them.
 */
import type { SettingsReader } from "../platform/settings-reader.ts";
import { isPlanId, PLAN_IDS } from "./plans.ts";

export interface BillingSettings {
  /** Stripe billing; undefined → test mode or no billing, per billingMode. */
  stripe: StripeConfig | undefined;
  /** How plans change: see BillingMode. */
  billingMode: BillingMode;
}

/**
 * - `stripe`: Stripe keys are configured; plans are bought through Checkout.
 * - `test`: plans change at once, free of charge — only with an explicit BILLING_MODE=test.
 *   Never inferred from the request or PUBLIC_BASE_URL: behind a plain reverse proxy every
 *   client looks local (loopback peer, loopback Host), so any rule of that kind hands paid
 *   plans to strangers (docs/decisions.md, "Billing").
 * - `off`: no self-service plan changes; the operator sets plans with the admin CLI. The
 *   default without Stripe.
 */
export type BillingMode = "stripe" | "test" | "off";
const BILLING_MODES = ["stripe", "test", "off"] as const;

export interface StripeConfig {
  secretKey: string;
  webhookSecret: string;
  /** Plan id → Stripe price id. */
  prices: Partial<Record<string, string>>;
  /** Stripe API origin (only for tests against a local stub); unset → Stripe's own. */
  apiBase: string | undefined;
}

export function parseBillingSettings(settings: SettingsReader): BillingSettings {
  const { read, url, problems } = settings;
  const stripeConfig = (): StripeConfig | undefined => {
    const secretKey = read("STRIPE_SECRET_KEY");
    const webhookSecret = read("STRIPE_WEBHOOK_SECRET");
    const pricesRaw = read("STRIPE_PRICES");
    if (!secretKey && !webhookSecret && !pricesRaw) return undefined;
    if (!secretKey || !webhookSecret || !pricesRaw) {
      problems.push(
        "Stripe billing needs STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET and STRIPE_PRICES together (or none of them for test mode)",
      );
      return undefined;
    }
    const prices: Record<string, string> = {};
    const pairs = pricesRaw.split(",").map((item) => item.trim());
    for (const pair of pairs.filter(Boolean)) {
      const [plan, price] = pair.split("=").map((part) => part.trim());
      if (!plan || !price || !/^[a-z]+$/.test(plan) || !/^price_[A-Za-z0-9]+$/.test(price)) {
        problems.push(`STRIPE_PRICES entry "${pair}" must look like starter=price_123`);
        continue;
      }
      if (!isPlanId(plan) || plan === "free") {
        const paid = PLAN_IDS.filter((id) => id !== "free").join(", ");
        problems.push(`STRIPE_PRICES names "${plan}", which is not a paid plan (${paid})`);
        continue;
      }
      if (prices[plan] || Object.values(prices).includes(price)) {
        problems.push(`STRIPE_PRICES lists plan "${plan}" or price ${price} twice`);
        continue;
      }
      prices[plan] = price;
    }
    return { secretKey, webhookSecret, prices, apiBase: url("STRIPE_API_BASE", ["http:", "https:"]) };
  };

  const billingMode = (stripe: StripeConfig | undefined): BillingMode => {
    const raw = read("BILLING_MODE")?.toLowerCase();
    if (raw !== undefined && !(BILLING_MODES as readonly string[]).includes(raw)) {
      problems.push(`BILLING_MODE must be one of ${BILLING_MODES.join(", ")}, got "${raw}"`);
      return "off";
    }
    if (raw === "stripe" && !stripe) problems.push("BILLING_MODE=stripe needs the STRIPE_* settings");
    if (raw === "test" && stripe) problems.push("BILLING_MODE=test cannot be used with the STRIPE_* settings");
    if (raw) return raw as BillingMode;
    return stripe ? "stripe" : "off";
  };

  const stripe = stripeConfig();
  return { stripe, billingMode: billingMode(stripe) };
}
