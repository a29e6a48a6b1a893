/**
 * POST /webhooks/stripe on a real instance (PGlite), with events in Stripe's format signed
 * with the test secret: signature checks, idempotency by event id, ordering by `created`,
 * the plan each event leads to as GET /api/usage reports it, cancellation at the period's
 * end (the sweeper) and failed payments.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { quotaPeriod } from "../../../server/platform/quota-period.ts";
import { createTestDatabase, type TestDatabase } from "../../helpers/databases.ts";
import { HAS_POSTGRES } from "../../helpers/env.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import {
  checkoutSession,
  deliver,
  event,
  failedInvoice,
  nowSeconds,
  PRICES,
  type SubscriptionFields,
  sign,
  stripeEnvFor,
  stripeId,
  subscription,
} from "./stripe-events.ts";
import { serviceWithStripeStub } from "./stripe-service.ts";

const stripe = serviceWithStripeStub();

interface Row {
  plan_id: string;
  subscription_status: string | null;
  current_period_end: Date | null;
  cancel_at_period_end: boolean;
  stripe_customer_id: string | null;
  stripe_subscription_id: string | null;
}

interface TestAccount {
  id: string;
  token: string;
  customer: string;
  sub: string;
}

async function account(): Promise<TestAccount> {
  const { accountId, token } = await stripe.service.token(undefined, "free");
  return { id: accountId, token, customer: stripeId("cus"), sub: stripeId("sub") };
}

/** The test account's own subscription at `price`, with any fields overridden. */
function subOf(acc: TestAccount, price: string, extra: Partial<SubscriptionFields> = {}) {
  return subscription({ id: acc.sub, customer: acc.customer, price, accountId: acc.id, ...extra });
}

async function row(accountId: string): Promise<Row> {
  const [found] = await stripe.service.running.services.db.sql<Row[]>`
    select plan_id, subscription_status, current_period_end, cancel_at_period_end, stripe_customer_id, stripe_subscription_id
    from accounts where id = ${accountId}`;
  if (!found) throw new Error(`no account ${accountId}`);
  return found;
}

async function usage(token: string): Promise<{ plan: { id: string }; quota: number; remaining: number }> {
  const response = await stripe.service.call<{ plan: { id: string }; quota: number; remaining: number }>(
    "GET",
    "/api/usage",
    {
      token,
    },
  );
  expect(response.status).toBe(200);
  return response.body;
}

async function recorded(eventId: string): Promise<number> {
  const [found] = await stripe.service.running.services.db.sql<
    { n: number }[]
  >`select count(*)::int as n from stripe_events where id = ${eventId}`;
  return found?.n ?? 0;
}

describe("Stripe webhooks", () => {
  test("customer.subscription.created puts the account on the plan of its price, at once", async () => {
    const acc = await account();
    expect((await usage(acc.token)).quota).toBe(3);
    const periodEnd = nowSeconds() + 30 * 86_400;
    const evt = event("customer.subscription.created", subOf(acc, PRICES.business, { periodEnd }));

    const response = await deliver(stripe.service.url, evt);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ received: true, event: evt.id, result: "processed" });

    const after = await usage(acc.token);
    expect(after.plan.id).toBe("business");
    expect(after.quota).toBe(150);
    const stored = await row(acc.id);
    expect(stored).toMatchObject({
      plan_id: "business",
      subscription_status: "active",
      cancel_at_period_end: false,
      stripe_customer_id: acc.customer,
      stripe_subscription_id: acc.sub,
    });
    expect(stored.current_period_end?.getTime()).toBe(periodEnd * 1000);
    expect(await recorded(evt.id)).toBe(1);
  });

  test("a bad or missing signature is 400 problem+json and changes nothing", async () => {
    const acc = await account();
    const evt = event("customer.subscription.created", subOf(acc, PRICES.business));
    const body = JSON.stringify(evt);
    const tampered = body.replace(PRICES.business, PRICES.starter);
    const attempts = [
      { signature: null }, // no header
      { signature: "garbage" },
      { signature: await sign(body, { secret: "whsec_someone_else" }) }, // another endpoint's secret
      { signature: await sign(body), body: tampered }, // body changed after signing
      { signature: await sign(body, { timestamp: nowSeconds() - 3_600 }) }, // replayed an hour later
    ];
    for (const attempt of attempts) {
      const response = await deliver(stripe.service.url, evt, { body, ...attempt });
      expect(response.status).toBe(400);
      expect(response.headers.get("content-type")).toContain("application/problem+json");
      expect(response.body).toMatchObject({ code: "invalid_request", status: 400 });
    }
    expect(await recorded(evt.id)).toBe(0);
    expect((await row(acc.id)).plan_id).toBe("free");
    expect((await usage(acc.token)).quota).toBe(3);
  });

  test("the same event delivered twice is processed once", async () => {
    const acc = await account();
    const evt = event("customer.subscription.created", subOf(acc, PRICES.starter));
    expect((await deliver(stripe.service.url, evt)).body.result).toBe("processed");
    expect((await row(acc.id)).plan_id).toBe("starter");

    // Support moves the account meanwhile; a re-delivery of the old event must not undo it
    // (its `created` alone would not stop it: it is not older than the stored state).
    await stripe.service.running.services.accounts.setPlan(acc.id, "enterprise");
    const again = await deliver(stripe.service.url, evt);
    expect(again.status).toBe(200);
    expect(again.body.result).toBe("duplicate");
    expect((await row(acc.id)).plan_id).toBe("enterprise");
    expect(await recorded(evt.id)).toBe(1);
  });

  test("concurrent deliveries of one event: exactly one is processed", async () => {
    const acc = await account();
    const evt = event("customer.subscription.created", subOf(acc, PRICES.starter));
    const body = JSON.stringify(evt);
    const results = await Promise.all(Array.from({ length: 6 }, () => deliver(stripe.service.url, evt, { body })));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(results.filter((r) => r.body.result === "processed")).toHaveLength(1);
    expect(results.filter((r) => r.body.result === "duplicate")).toHaveLength(5);
    expect(await recorded(evt.id)).toBe(1);
    expect((await row(acc.id)).plan_id).toBe("starter");
  });

  test("subscription.updated arriving before checkout.session.completed still ends on the right plan", async () => {
    const acc = await account();
    const t = nowSeconds();
    const completed = event(
      "checkout.session.completed",
      checkoutSession({ accountId: acc.id, customer: acc.customer, subscription: acc.sub }),
      t,
    );
    const created = event("customer.subscription.created", subOf(acc, PRICES.business, { status: "incomplete" }), t);
    const updated = event("customer.subscription.updated", subOf(acc, PRICES.business), t + 1, {
      status: "incomplete",
    });

    // Delivery order: updated (active), then created (incomplete, older), then the checkout.
    expect((await deliver(stripe.service.url, updated)).status).toBe(200);
    expect((await usage(acc.token)).plan.id).toBe("business");
    expect((await deliver(stripe.service.url, created)).status).toBe(200);
    expect((await deliver(stripe.service.url, completed)).status).toBe(200);

    const stored = await row(acc.id);
    expect(stored).toMatchObject({
      plan_id: "business",
      subscription_status: "active",
      stripe_customer_id: acc.customer,
      stripe_subscription_id: acc.sub,
    });
    expect((await usage(acc.token)).quota).toBe(150);
  });

  test("checkout.session.completed alone links the customer and leaves the plan to the subscription events", async () => {
    const acc = await account();
    const completed = event(
      "checkout.session.completed",
      checkoutSession({ accountId: acc.id, customer: acc.customer, subscription: acc.sub }),
    );
    expect((await deliver(stripe.service.url, completed)).body.result).toBe("processed");
    expect(await row(acc.id)).toMatchObject({
      plan_id: "free",
      stripe_customer_id: acc.customer,
      stripe_subscription_id: acc.sub,
    });

    // A later subscription event without our metadata finds the account by its customer.
    const created = event(
      "customer.subscription.created",
      subscription({ id: acc.sub, customer: acc.customer, price: PRICES.starter }),
    );
    expect((await deliver(stripe.service.url, created)).status).toBe(200);
    expect((await usage(acc.token)).plan.id).toBe("starter");
  });

  test("an older event arriving after a newer one is ignored", async () => {
    const acc = await account();
    const t = nowSeconds();
    const newer = event("customer.subscription.updated", subOf(acc, PRICES.business), t);
    const older = event("customer.subscription.updated", subOf(acc, PRICES.starter), t - 120);
    expect((await deliver(stripe.service.url, newer)).status).toBe(200);
    const late = await deliver(stripe.service.url, older);
    expect(late.status).toBe(200); // acknowledged (Stripe must not retry it) …
    expect(await recorded(older.id)).toBe(1);
    expect((await row(acc.id)).plan_id).toBe("business"); // … but it changed nothing
    expect((await usage(acc.token)).quota).toBe(150);

    // An older deletion does not end a newer subscription state either.
    const oldDelete = event(
      "customer.subscription.deleted",
      subOf(acc, PRICES.business, { status: "canceled" }),
      t - 60,
    );
    expect((await deliver(stripe.service.url, oldDelete)).status).toBe(200);
    expect((await row(acc.id)).plan_id).toBe("business");
  });

  test("a plan change takes effect at once: remaining = max(0, new quota − used)", async () => {
    const acc = await account();
    await deliver(stripe.service.url, event("customer.subscription.created", subOf(acc, PRICES.business)));
    // 100 reports used this period.
    await stripe.service.running.services.db.sql`
      insert into usage_periods (account_id, period_start, used, reserved)
      values (${acc.id}, ${quotaPeriod().key}, 100, 0)
      on conflict (account_id, period_start) do update set used = 100`;
    expect((await usage(acc.token)).remaining).toBe(50);
    await deliver(
      stripe.service.url,
      event("customer.subscription.updated", subOf(acc, PRICES.starter), nowSeconds() + 1),
    );
    const after = await usage(acc.token);
    expect(after).toMatchObject({ plan: { id: "starter" }, quota: 50, remaining: 0 });
  });

  test("cancel_at_period_end keeps the plan until current_period_end, then the sweeper moves the account to Free", async () => {
    const acc = await account();
    await deliver(
      stripe.service.url,
      event("customer.subscription.created", subOf(acc, PRICES.starter), nowSeconds() - 10),
    );
    const periodEnd = nowSeconds() + 2;
    const cancelled = event(
      "customer.subscription.updated",
      subOf(acc, PRICES.starter, { cancelAtPeriodEnd: true, periodEnd }),
      nowSeconds(),
      { cancel_at_period_end: false },
    );
    expect((await deliver(stripe.service.url, cancelled)).status).toBe(200);
    expect(await row(acc.id)).toMatchObject({ plan_id: "starter", cancel_at_period_end: true });

    await stripe.service.running.sweep();
    expect((await row(acc.id)).plan_id).toBe("starter"); // the paid period is not over
    expect((await usage(acc.token)).quota).toBe(50);

    await Bun.sleep(Math.max(0, periodEnd * 1000 - Date.now()) + 50);
    await stripe.service.running.sweep();
    expect(await row(acc.id)).toMatchObject({
      plan_id: "free",
      cancel_at_period_end: false,
      subscription_status: "canceled",
    });
    expect((await usage(acc.token)).quota).toBe(3);
  });

  test("cancel_at (a cancellation date) also keeps the plan until that date", async () => {
    const acc = await account();
    const cancelAt = nowSeconds() + 7 * 86_400;
    const evt = event("customer.subscription.updated", subOf(acc, PRICES.starter, { cancelAt }));
    await deliver(stripe.service.url, evt);
    const stored = await row(acc.id);
    expect(stored).toMatchObject({ plan_id: "starter", cancel_at_period_end: true });
    expect(stored.current_period_end?.getTime()).toBe(cancelAt * 1000);
  });

  test("customer.subscription.deleted moves the account to Free", async () => {
    const acc = await account();
    await deliver(
      stripe.service.url,
      event("customer.subscription.created", subOf(acc, PRICES.business), nowSeconds() - 5),
    );
    expect((await usage(acc.token)).quota).toBe(150);
    const deleted = event("customer.subscription.deleted", subOf(acc, PRICES.business, { status: "canceled" }));
    expect((await deliver(stripe.service.url, deleted)).status).toBe(200);
    expect(await row(acc.id)).toMatchObject({
      plan_id: "free",
      subscription_status: "canceled",
      cancel_at_period_end: false,
      current_period_end: null,
    });
    expect((await usage(acc.token)).quota).toBe(3);
  });

  test("the end of a replaced subscription does not downgrade the current one", async () => {
    const acc = await account();
    const old = stripeId("sub");
    const t = nowSeconds();
    await deliver(stripe.service.url, event("customer.subscription.created", subOf(acc, PRICES.business), t - 5));
    const oldEnded = event(
      "customer.subscription.deleted",
      subscription({ id: old, customer: acc.customer, price: PRICES.starter, accountId: acc.id, status: "canceled" }),
      t,
    );
    expect((await deliver(stripe.service.url, oldEnded)).status).toBe(200);
    expect(await row(acc.id)).toMatchObject({ plan_id: "business", stripe_subscription_id: acc.sub });
  });

  test("invoice.payment_failed marks past_due and keeps the plan; Stripe's final verdict decides", async () => {
    const acc = await account();
    await deliver(
      stripe.service.url,
      event("customer.subscription.created", subOf(acc, PRICES.starter), nowSeconds() - 60),
    );
    const failed = event(
      "invoice.payment_failed",
      failedInvoice({ customer: acc.customer, subscription: acc.sub, accountId: acc.id }),
      nowSeconds() - 30,
    );
    expect((await deliver(stripe.service.url, failed)).status).toBe(200);
    expect(await row(acc.id)).toMatchObject({ plan_id: "starter", subscription_status: "past_due" });
    expect((await usage(acc.token)).quota).toBe(50);

    // Stripe's retries fail and the subscription is marked unpaid → Free.
    const unpaid = event(
      "customer.subscription.updated",
      subOf(acc, PRICES.starter, { status: "unpaid" }),
      nowSeconds(),
      {
        status: "past_due",
      },
    );
    expect((await deliver(stripe.service.url, unpaid)).status).toBe(200);
    expect(await row(acc.id)).toMatchObject({ plan_id: "free", subscription_status: "unpaid" });
    expect((await usage(acc.token)).quota).toBe(3);

    // Paid after all: active again, the plan comes back.
    const paid = event("customer.subscription.updated", subOf(acc, PRICES.starter), nowSeconds() + 1, {
      status: "unpaid",
    });
    expect((await deliver(stripe.service.url, paid)).status).toBe(200);
    expect(await row(acc.id)).toMatchObject({ plan_id: "starter", subscription_status: "active" });
  });

  test("a failed invoice on an account without a paid plan changes nothing", async () => {
    const acc = await account();
    const failed = event(
      "invoice.payment_failed",
      failedInvoice({ customer: acc.customer, subscription: acc.sub, accountId: acc.id }),
    );
    expect((await deliver(stripe.service.url, failed)).status).toBe(200);
    expect(await row(acc.id)).toMatchObject({ plan_id: "free", subscription_status: null });
  });

  test("unknown event types are acknowledged and ignored", async () => {
    const evt = event("customer.created", { id: stripeId("cus"), object: "customer", email: "someone@example.com" });
    const response = await deliver(stripe.service.url, evt);
    expect(response.status).toBe(200);
    expect(response.body.result).toBe("ignored");
    expect(await recorded(evt.id)).toBe(0);
  });

  test("a price missing from STRIPE_PRICES is answered 503 (Stripe retries) and not recorded", async () => {
    const acc = await account();
    const evt = event("customer.subscription.created", subOf(acc, "price_1UnknownToUs"));
    const response = await deliver(stripe.service.url, evt);
    expect(response.status).toBe(503);
    expect(response.body.code).toBe("unavailable");
    expect(await recorded(evt.id)).toBe(0);
    expect((await row(acc.id)).plan_id).toBe("free");
  });

  test("subscriptions of unknown customers (another product on the same Stripe account) are ignored", async () => {
    const evt = event(
      "customer.subscription.created",
      subscription({ id: stripeId("sub"), customer: stripeId("cus"), price: "price_1OtherProduct" }),
    );
    const response = await deliver(stripe.service.url, evt);
    expect(response.status).toBe(200);
    expect(response.body.result).toBe("processed");
  });

  test("bodies over MAX_BODY_BYTES are refused with 413", async () => {
    const evt = event("customer.created", { id: stripeId("cus"), object: "customer", description: "x".repeat(70_000) });
    const response = await deliver(stripe.service.url, evt);
    expect(response.status).toBe(413);
    expect(response.body.code).toBe("payload_too_large");
  });
});

describe.skipIf(!HAS_POSTGRES)("Stripe webhooks on two instances sharing PostgreSQL", () => {
  let db: TestDatabase;
  let instances: TestService[] = [];

  beforeAll(async () => {
    db = await createTestDatabase("postgres");
    const env = stripeEnvFor(stripe.stub);
    instances = [await startTestService({ db, env }), await startTestService({ db, env })];
  });

  afterAll(async () => {
    for (const instance of instances) await instance.stop();
    await db?.destroy();
  });

  test("one event delivered to both instances at once is processed exactly once", async () => {
    const [a, b] = instances as [TestService, TestService];
    const { accountId } = await a.token(undefined, "free");
    const evt = event(
      "customer.subscription.created",
      subscription({ id: stripeId("sub"), customer: stripeId("cus"), price: PRICES.business, accountId }),
    );
    const body = JSON.stringify(evt);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => deliver((i % 2 ? a : b).url, evt, { body })),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(results.filter((r) => r.body.result === "processed")).toHaveLength(1);
    const [found] = await db.sql<{ n: number; plan_id: string }[]>`
      select (select count(*)::int from stripe_events where id = ${evt.id}) as n, plan_id from accounts where id = ${accountId}`;
    expect(found).toEqual({ n: 1, plan_id: "business" });
  });

  test("a burst of events for one account, in any order, ends on the newest state", async () => {
    const [a, b] = instances as [TestService, TestService];
    const { accountId } = await a.token(undefined, "free");
    const sub = stripeId("sub");
    const customer = stripeId("cus");
    const t = nowSeconds();
    const prices = [PRICES.starter, PRICES.business];
    const events = Array.from({ length: 12 }, (_, i) =>
      event(
        "customer.subscription.updated",
        subscription({ id: sub, customer, price: prices[i % 2] as string, accountId }),
        t - 100 + i,
      ),
    );
    // The newest (i = 11) is business; deliver them shuffled, half to each instance.
    const shuffled = [...events].sort(() => Math.random() - 0.5);
    const results = await Promise.all(shuffled.map((evt, i) => deliver((i % 2 ? a : b).url, evt)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const [found] = await db.sql<{ plan_id: string; billing_event_at: Date }[]>`
      select plan_id, billing_event_at from accounts where id = ${accountId}`;
    expect(found?.plan_id).toBe("business");
    expect(found?.billing_event_at.getTime()).toBe((t - 89) * 1000);
  });
});
