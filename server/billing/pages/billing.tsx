/** Plan and billing: the current plan and period, plan changes, management and cancellation. */
import type { AccountDetails } from "../../accounts/account.service.ts";
import type { WebContext } from "../../web/context.ts";
import { FormError, formatDate } from "../../web/pages/common.tsx";
import { Csrf, Notice } from "../../web/render.tsx";
import { BILLING_NOT_CONFIGURED } from "../disabled.provider.ts";
import { PLANS, type PlanId } from "../plans.ts";
import { PlanCard } from "./plans.tsx";

export function BillingPage(props: {
  ctx: WebContext;
  query: Record<string, string | undefined>;
  account: AccountDetails;
  mode: "stripe" | "test" | "off";
  purchasable: PlanId[];
  hasPortal: boolean;
  /** Reports used this period, against the current plan's quota. */
  usage: { used: number; quota: number; remaining: number };
  error?: string;
}) {
  const { ctx, account, mode } = props;
  const current = PLANS.find((plan) => plan.id === account.planId);
  const canCancel = mode === "test" && account.planId !== "free" && !account.cancelAtPeriodEnd;
  return (
    <div class="stack">
      <Notice query={props.query} />
      <h1>Plan &amp; billing</h1>
      {mode === "test" ? (
        <p class="test-mode" role="note">
          Test mode — no payment provider is configured. Plan changes apply immediately and nothing is charged.
        </p>
      ) : mode === "off" ? (
        <p class="test-mode" role="note" id="billing-off">
          {BILLING_NOT_CONFIGURED}
        </p>
      ) : null}
      <FormError message={props.error} />
      <div class="card stack">
        <h2>Current plan</h2>
        <p>
          <strong id="current-plan">{current?.name ?? account.planId}</strong> — {current?.monthlyQuota} reports a
          month, {current?.requestsPerMinute} API requests a minute.
        </p>
        <p>
          This month: <strong id="billing-used">{props.usage.used}</strong> of{" "}
          <strong id="billing-quota">{props.usage.quota}</strong> reports used, {props.usage.remaining} left.
        </p>
        {account.currentPeriodEnd ? (
          <p class={account.cancelAtPeriodEnd ? "alert warning" : "small"} id="period-end">
            {account.cancelAtPeriodEnd ? "Cancelled: you keep this plan until " : "Paid period ends "}
            {formatDate(account.currentPeriodEnd)}
            {account.cancelAtPeriodEnd ? ", then move to Free." : "."}
            {account.subscriptionStatus && account.subscriptionStatus !== "active"
              ? ` Status: ${account.subscriptionStatus}.`
              : ""}
          </p>
        ) : null}
        {props.hasPortal || canCancel ? (
          <div class="row">
            {props.hasPortal ? (
              <form method="post" action="/billing/portal" class="inline">
                <Csrf ctx={ctx} />
                <button type="submit" class="secondary">
                  Manage subscription and invoices
                </button>
              </form>
            ) : null}
            {canCancel ? (
              <form
                method="post"
                action="/billing/cancel"
                class="inline"
                data-confirm="Cancel your plan? You keep it until the end of the period."
              >
                <Csrf ctx={ctx} />
                <button type="submit" class="danger">
                  Cancel plan
                </button>
              </form>
            ) : null}
          </div>
        ) : null}
      </div>
      <section aria-labelledby="plans-heading">
        <h2 id="plans-heading">Plans</h2>
        <div class="plans">
          {PLANS.map((plan) => (
            <PlanCard plan={plan} current={plan.id === account.planId} key={plan.id}>
              {plan.id === account.planId && !account.cancelAtPeriodEnd ? (
                <p class="plan-state">Your plan</p>
              ) : props.purchasable.includes(plan.id) ? (
                <form method="post" action="/billing/checkout">
                  <Csrf ctx={ctx} />
                  <input type="hidden" name="plan" value={plan.id} />
                  <button type="submit">
                    {plan.id === account.planId ? `Keep ${plan.name}` : `Switch to ${plan.name}`}
                  </button>
                </form>
              ) : null}
            </PlanCard>
          ))}
        </div>
      </section>
    </div>
  );
}
