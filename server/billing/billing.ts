/**
 * The billing feature, built once per process (services.ts): subscriptions, the billing
 * provider the web's plan pages use, and Stripe's event deliveries when Stripe is configured.
 */
import type Stripe from "stripe";
import { SubscriptionService } from "../accounts/subscriptions.ts";
import type { Sql } from "../platform/db/database.ts";
import type { Logger } from "../platform/logger.ts";
import { DisabledBillingProvider } from "./disabled.provider.ts";
import type { BillingProvider } from "./provider.ts";
import type { BillingSettings } from "./settings.ts";
import { createStripeClient, PriceBook } from "./stripe.client.ts";
import { StripeBillingProvider } from "./stripe.provider.ts";
import { StripeWebhookService } from "./stripe-webhooks.service.ts";
import { TestModeBillingProvider } from "./test-mode.provider.ts";

export interface Billing {
  subscriptions: SubscriptionService;
  billing: BillingProvider;
  /** Stripe's event deliveries; absent when Stripe is not configured. */
  stripeWebhooks: StripeWebhookService | undefined;
}

/** The one Stripe SDK client and price book of the process, when Stripe is configured. */
interface StripeParts {
  client: Stripe;
  prices: PriceBook;
}

/**
 * Stripe when its keys are configured; the clearly labelled test mode only with an explicit
 * BILLING_MODE=test; otherwise no self-service plan changes at all.
 */
function billingProvider(
  config: BillingSettings,
  stripe: StripeParts | undefined,
  subscriptions: SubscriptionService,
  logger: Logger,
): BillingProvider {
  switch (config.billingMode) {
    case "stripe":
      if (!stripe) throw new Error("BILLING_MODE=stripe without Stripe settings");
      return new StripeBillingProvider(stripe.client, stripe.prices, logger);
    case "test":
      return new TestModeBillingProvider(subscriptions);
    case "off":
      return new DisabledBillingProvider();
  }
}

export function createBilling(config: BillingSettings, sql: Sql, logger: Logger, provider?: BillingProvider): Billing {
  const subscriptions = new SubscriptionService(sql);
  // Built once: the billing provider (Checkout, Portal) and the webhook service share it.
  const stripe: StripeParts | undefined = config.stripe
    ? { client: createStripeClient(config.stripe), prices: new PriceBook(config.stripe.prices) }
    : undefined;
  return {
    subscriptions,
    billing: provider ?? billingProvider(config, stripe, subscriptions, logger),
    stripeWebhooks:
      stripe && config.stripe
        ? new StripeWebhookService({
            stripe: stripe.client,
            webhookSecret: config.stripe.webhookSecret,
            prices: stripe.prices,
            sql,
            logger,
          })
        : undefined,
  };
}
