/**
 * Webhook events in Stripe's JSON format (API version of the installed SDK: subscription
 * periods on the items, an invoice's subscription under `parent.subscription_details`),
 * signed the way Stripe signs them, with the SDK's own test helper.
 */
import Stripe from "stripe";

export const WEBHOOK_SECRET = "whsec_test_wpreport0123456789abcdef";
export const SECRET_KEY = "sk_test_wpreport0123456789";
export const PRICES = { starter: "price_1StarterTEST", business: "price_1BusinessTEST" } as const;
export const STRIPE_ENV = {
  STRIPE_SECRET_KEY: SECRET_KEY,
  STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
  STRIPE_PRICES: `starter=${PRICES.starter}, business=${PRICES.business}`,
};

/** STRIPE_ENV with the SDK pointed at a local stub of Stripe's API. */
export const stripeEnvFor = (stub: { url: string }) => ({ ...STRIPE_ENV, STRIPE_API_BASE: stub.url });

const stripe = new Stripe(SECRET_KEY);
let counter = 0;
export const stripeId = (prefix: string) =>
  `${prefix}_1T${Date.now().toString(36)}${(++counter).toString(36).padStart(5, "0")}`;
export const nowSeconds = () => Math.floor(Date.now() / 1000);

export interface StripeEvent {
  id: string;
  object: "event";
  api_version: string;
  created: number;
  data: { object: Record<string, unknown>; previous_attributes?: Record<string, unknown> };
  livemode: false;
  pending_webhooks: number;
  request: { id: string | null; idempotency_key: string | null };
  type: string;
}

export function event(
  type: string,
  object: Record<string, unknown>,
  created = nowSeconds(),
  previous?: Record<string, unknown>,
): StripeEvent {
  return {
    id: stripeId("evt"),
    object: "event",
    api_version: Stripe.API_VERSION,
    created,
    data: previous ? { object, previous_attributes: previous } : { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: stripeId("req"), idempotency_key: crypto.randomUUID() },
    type,
  };
}

export interface SubscriptionFields {
  id: string;
  customer: string;
  price: string;
  status?: string;
  /** Our metadata (set through Checkout's subscription_data); omit for a subscription made elsewhere. */
  accountId?: string;
  periodStart?: number;
  periodEnd?: number;
  cancelAtPeriodEnd?: boolean;
  cancelAt?: number | null;
  created?: number;
}

/** A Subscription object as Stripe sends it in customer.subscription.* events. */
export function subscription(fields: SubscriptionFields): Record<string, unknown> {
  const start = fields.periodStart ?? nowSeconds() - 3_600;
  const end = fields.periodEnd ?? start + 30 * 86_400;
  const status = fields.status ?? "active";
  const canceled = status === "canceled";
  return {
    id: fields.id,
    object: "subscription",
    application: null,
    application_fee_percent: null,
    automatic_tax: { disabled_reason: null, enabled: false, liability: null },
    billing_cycle_anchor: start,
    billing_cycle_anchor_config: null,
    billing_mode: { flexible: null, type: "classic" },
    billing_thresholds: null,
    cancel_at: fields.cancelAt ?? null,
    cancel_at_period_end: fields.cancelAtPeriodEnd ?? false,
    canceled_at: canceled || fields.cancelAtPeriodEnd ? nowSeconds() : null,
    cancellation_details: {
      comment: null,
      feedback: null,
      reason: canceled || fields.cancelAtPeriodEnd ? "cancellation_requested" : null,
    },
    collection_method: "charge_automatically",
    created: fields.created ?? start,
    currency: "eur",
    customer: fields.customer,
    customer_account: null,
    days_until_due: null,
    default_payment_method: stripeId("pm"),
    default_source: null,
    default_tax_rates: [],
    description: null,
    discounts: [],
    ended_at: canceled ? nowSeconds() : null,
    invoice_settings: { account_tax_ids: null, issuer: { type: "self" } },
    items: {
      object: "list",
      data: [
        {
          id: stripeId("si"),
          object: "subscription_item",
          billing_thresholds: null,
          created: start,
          current_period_end: end,
          current_period_start: start,
          discounts: [],
          metadata: {},
          price: {
            id: fields.price,
            object: "price",
            active: true,
            billing_scheme: "per_unit",
            created: 1_700_000_000,
            currency: "eur",
            custom_unit_amount: null,
            livemode: false,
            lookup_key: null,
            metadata: {},
            nickname: null,
            product: "prod_TwpreportPlan",
            recurring: {
              interval: "month",
              interval_count: 1,
              meter: null,
              trial_period_days: null,
              usage_type: "licensed",
            },
            tax_behavior: "unspecified",
            tiers_mode: null,
            transform_quantity: null,
            type: "recurring",
            unit_amount: 1900,
            unit_amount_decimal: "1900",
          },
          quantity: 1,
          subscription: fields.id,
          tax_rates: [],
        },
      ],
      has_more: false,
      total_count: 1,
      url: `/v1/subscription_items?subscription=${fields.id}`,
    },
    latest_invoice: stripeId("in"),
    livemode: false,
    metadata: fields.accountId ? { account_id: fields.accountId } : {},
    next_pending_invoice_item_invoice: null,
    on_behalf_of: null,
    pause_collection: null,
    payment_settings: { payment_method_options: null, payment_method_types: null, save_default_payment_method: "off" },
    pending_invoice_item_interval: null,
    pending_setup_intent: null,
    pending_update: null,
    schedule: null,
    start_date: start,
    status,
    test_clock: null,
    transfer_data: null,
    trial_end: null,
    trial_settings: { end_behavior: { missing_payment_method: "create_invoice" } },
    trial_start: null,
  };
}

/** A completed Checkout Session in subscription mode, as in checkout.session.completed. */
export function checkoutSession(fields: {
  accountId: string;
  customer: string;
  subscription: string;
  email?: string;
}): Record<string, unknown> {
  const id = stripeId("cs");
  return {
    id,
    object: "checkout.session",
    adaptive_pricing: { enabled: false },
    after_expiration: null,
    allow_promotion_codes: null,
    amount_subtotal: 1900,
    amount_total: 1900,
    automatic_tax: { enabled: false, liability: null, provider: null, status: null },
    billing_address_collection: null,
    cancel_url: "http://127.0.0.1/billing?notice=checkout_cancelled",
    client_reference_id: fields.accountId,
    client_secret: null,
    consent: null,
    consent_collection: null,
    created: nowSeconds() - 60,
    currency: "eur",
    custom_fields: [],
    custom_text: { after_submit: null, shipping_address: null, submit: null, terms_of_service_acceptance: null },
    customer: fields.customer,
    customer_creation: "always",
    customer_details: {
      address: null,
      email: fields.email ?? "customer@example.com",
      name: "Test Customer",
      phone: null,
      tax_exempt: "none",
      tax_ids: [],
    },
    customer_email: fields.email ?? "customer@example.com",
    discounts: [],
    expires_at: nowSeconds() + 86_400,
    invoice: stripeId("in"),
    invoice_creation: null,
    livemode: false,
    locale: null,
    metadata: { account_id: fields.accountId },
    mode: "subscription",
    payment_intent: null,
    payment_link: null,
    payment_method_collection: "always",
    payment_method_types: ["card"],
    payment_status: "paid",
    status: "complete",
    submit_type: null,
    subscription: fields.subscription,
    success_url: "http://127.0.0.1/billing?notice=checkout_done",
    total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
    ui_mode: "hosted",
    url: null,
  };
}

/** A failed renewal invoice, as in invoice.payment_failed. */
export function failedInvoice(fields: {
  customer: string;
  subscription: string;
  accountId?: string;
}): Record<string, unknown> {
  return {
    id: stripeId("in"),
    object: "invoice",
    account_country: "DE",
    amount_due: 1900,
    amount_paid: 0,
    amount_remaining: 1900,
    attempt_count: 1,
    attempted: true,
    billing_reason: "subscription_cycle",
    collection_method: "charge_automatically",
    created: nowSeconds() - 3_600,
    currency: "eur",
    customer: fields.customer,
    customer_email: "customer@example.com",
    livemode: false,
    metadata: {},
    next_payment_attempt: nowSeconds() + 3 * 86_400,
    parent: {
      quote_details: null,
      subscription_details: {
        metadata: fields.accountId ? { account_id: fields.accountId } : {},
        subscription: fields.subscription,
      },
      type: "subscription_details",
    },
    period_end: nowSeconds(),
    period_start: nowSeconds() - 30 * 86_400,
    status: "open",
    total: 1900,
  };
}

/**
 * The Stripe-Signature header for a body, computed with the SDK's test helper
 * (`generateTestHeaderString`; its async form, since under Bun the SDK's web build signs
 * with SubtleCrypto).
 */
export function sign(payload: string, options: { secret?: string; timestamp?: number } = {}): Promise<string> {
  return stripe.webhooks.generateTestHeaderStringAsync({
    payload,
    secret: options.secret ?? WEBHOOK_SECRET,
    timestamp: options.timestamp,
  });
}

/** Posts an event to the service as Stripe does: JSON body, Stripe-Signature header. */
export async function deliver(
  baseUrl: string,
  evt: StripeEvent,
  options: { signature?: string | null; body?: string } = {},
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const body = options.body ?? JSON.stringify(evt, null, 2);
  const headers: Record<string, string> = {
    "content-type": "application/json; charset=utf-8",
    "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
    accept: "*/*; q=0.5, application/xml",
  };
  const signature = options.signature === undefined ? await sign(body) : options.signature;
  if (signature !== null) headers["stripe-signature"] = signature;
  const response = await fetch(`${baseUrl}/webhooks/stripe`, { method: "POST", headers, body });
  const text = await response.text();
  let parsed: Record<string, unknown> = {};
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = { text };
  }
  return { status: response.status, body: parsed, headers: response.headers };
}
