/**
 * The start page: what wpreport does, the plans, and how to start. The plans are billing's
 * (billing/pages/plans.tsx): start/app.ts hands their table in, so the shell imports no feature.
 */
import type { ComponentType } from "preact";
import type { WebContext } from "../context.ts";

export function LandingPage({ ctx, Pricing }: { ctx: WebContext; Pricing: ComponentType }) {
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
        <Pricing />
      </section>
    </div>
  );
}
