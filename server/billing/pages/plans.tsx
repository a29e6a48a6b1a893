/** The plans as cards: on the billing page, and as the landing page's pricing (start/app.ts hands it over). */
import type { ComponentChildren } from "preact";
import { PLANS, type Plan } from "../plans.ts";

export function price(plan: Plan): string {
  if (plan.priceEurCents === null) return "With the web subscription";
  return plan.priceEurCents === 0 ? "€0" : `€${plan.priceEurCents / 100}`;
}

/** The price line of a plan card (a plan without its own price says how it is sold instead). */
export function PlanPrice({ plan }: { plan: Plan }) {
  if (plan.priceEurCents === null) return <p class="price note">{price(plan)}</p>;
  return (
    <p class="price">
      {price(plan)}
      {plan.priceEurCents ? <span class="small muted"> /month</span> : null}
    </p>
  );
}

/** One plan's card: name, price and limits; `children` adds the state or the action. */
export function PlanCard({ plan, current, children }: { plan: Plan; current: boolean; children?: ComponentChildren }) {
  return (
    <div class={`card plan${current ? " current" : ""}`}>
      <h3>{plan.name}</h3>
      <PlanPrice plan={plan} />
      <p class="small">
        <strong>{plan.monthlyQuota}</strong> reports a month
        <br />
        {plan.requestsPerMinute} API requests a minute
      </p>
      {children}
    </div>
  );
}

export function PlanTable({ current }: { current?: string }) {
  return (
    <div class="plans">
      {PLANS.map((plan) => (
        <PlanCard plan={plan} current={current === plan.id} key={plan.id}>
          {current === plan.id ? <p class="plan-state">Your plan</p> : null}
        </PlanCard>
      ))}
    </div>
  );
}
