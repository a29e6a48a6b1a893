/** The start page: what wpreport does, the plans, and how to start. */
import type { ComponentChildren } from "preact";
import { PLANS, type Plan } from "../../billing/plans.ts";
import type { WebContext } from "../context.ts";

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

export function LandingPage({ ctx }: { ctx: WebContext }) {
  return (
    <div class="stack">
      <section>
        <h1>Know what changed on your WordPress site — before your clients do.</h1>
        <p class="lead">
          wpreport analyses a WordPress site on demand — core, theme, plugins, performance, SEO and security — and tells
          you what regressed after every deploy. One API call, one GitHub Action step, or one click here.
        </p>
        <p>
          {ctx.session ? (
            <a class="button" href="/dashboard">
              Go to your dashboard
            </a>
          ) : (
            <a class="button" href="/signup">
              Start free — 3 reports a month
            </a>
          )}{" "}
          <a class="button secondary" href="#pricing">
            See plans
          </a>
        </p>
      </section>
      <section class="grid" aria-label="What you get">
        <div class="card">
          <h2>Detection you can trust</h2>
          <p>
            WordPress version, theme and plugins with the evidence for each fact and a confidence — no guesses dressed
            up as findings.
          </p>
        </div>
        <div class="card">
          <h2>Checks with fixes</h2>
          <p>
            Security headers, exposed files, user enumeration, XML-RPC, caching, page weight, SEO basics — each with a
            plain remediation.
          </p>
        </div>
        <div class="card">
          <h2>A gate for every deploy</h2>
          <p>
            The GitHub Action compares with the previous report, annotates what regressed and fails the build at your
            threshold.
          </p>
        </div>
      </section>
      <section id="pricing">
        <h2>Plans</h2>
        <p class="muted">
          One monthly quota for reports from the API and the web. Reads are free. Quotas reset on the 1st at 00:00 UTC.
        </p>
        <PlanTable />
      </section>
    </div>
  );
}
