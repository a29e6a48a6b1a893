/** Plan and billing: the page, checkout, the provider's portal and cancellation (server/billing). */
import { Elysia } from "elysia";
import type { VNode } from "preact";
import type { AccountDetails } from "../accounts/account.service.ts";
import type { WebContext } from "../web/context.ts";
import { page, redirect } from "../web/render.tsx";
import { type WebPluginDeps, webPlugin } from "../web/web.plugin.ts";
import { BILLING_NOT_CONFIGURED } from "./disabled.provider.ts";
import { BillingPage } from "./pages/billing.tsx";
import { getPlan, isPlanId } from "./plans.ts";
import type { BillingProvider } from "./provider.ts";
import type { QuotaService } from "./quota.service.ts";

export interface BillingRouteDeps extends WebPluginDeps {
  quota: QuotaService;
  billing: BillingProvider;
}

export function billingRoutes(deps: BillingRouteDeps) {
  // One billing for every browser: no request decides the mode (docs/decisions.md, "Billing").

  return new Elysia({ name: "web.billing" })
    .use(webPlugin(deps))
    .get("/billing", ({ ctx, account, query }) => billingPage(ctx, account, query), { account: true })
    .post(
      "/billing/checkout",
      async ({ ctx, account, form }) => {
        const billing = deps.billing;
        if (billing.mode === "off") return billingPage(ctx, account, {}, BILLING_NOT_CONFIGURED, 403);
        const plan = form.plan ?? "";
        if (!isPlanId(plan) || !billing.purchasable().includes(plan))
          return billingPage(ctx, account, {}, "That plan cannot be bought here.", 400);
        const target = await billing.checkout(account, plan, {
          success: `${ctx.baseUrl}/billing?notice=${billing.mode === "test" ? "plan_changed" : "checkout_done"}`,
          cancel: `${ctx.baseUrl}/billing?notice=checkout_cancelled`,
        });
        return redirect(ctx, target);
      },
      { account: true, csrf: true },
    )
    .post(
      "/billing/portal",
      async ({ ctx, account }) => {
        const target = await deps.billing.portal(account, `${ctx.baseUrl}/billing`);
        if (!target) return billingPage(ctx, account, {}, "There is no subscription to manage yet.", 400);
        return redirect(ctx, target);
      },
      { account: true, csrf: true },
    )
    .post(
      "/billing/cancel",
      async ({ ctx, account }) => {
        const billing = deps.billing;
        if (billing.mode === "off") return billingPage(ctx, account, {}, BILLING_NOT_CONFIGURED, 403);
        await billing.cancel(account);
        return redirect(ctx, "/billing?notice=plan_cancelled");
      },
      { account: true, csrf: true },
    );

  async function billingPage(
    ctx: WebContext,
    account: AccountDetails,
    query: Record<string, string | undefined>,
    error?: string,
    status = 200,
  ) {
    const usage = await deps.quota.usage(account.id, getPlan(account.planId).monthlyQuota);
    const billing = deps.billing;
    const view: VNode = (
      <BillingPage
        ctx={ctx}
        query={query}
        account={account}
        mode={billing.mode}
        purchasable={billing.purchasable()}
        hasPortal={billing.mode === "stripe" && account.stripeCustomerId !== null}
        usage={usage}
        error={error}
      />
    );
    return page(ctx, "Plan & billing", view, status);
  }
}
