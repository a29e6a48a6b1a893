/** The dashboard: usage this period, plan and rate limit, the analyze form, recent reports. */

import type { ReportListItem } from "../../../shared/api.ts";
import type { Plan } from "../../billing/plans.ts";
import type { UsageSnapshot } from "../../billing/quota.service.ts";
import type { WebContext } from "../../web/context.ts";
import { FormError, formatDate, GradeBadge, Table, UsageMeter } from "../../web/pages/common.tsx";
import { Csrf, Notice } from "../../web/render.tsx";

export function AnalyzeForm({ ctx, url, error }: { ctx: WebContext; url?: string; error?: string }) {
  return (
    <div class="card stack">
      <h2 id="analyze-heading">Analyze a site</h2>
      <FormError message={error} />
      <form method="post" action="/analyze" aria-labelledby="analyze-heading" data-busy="Analyzing…">
        <Csrf ctx={ctx} />
        <div class="row">
          <div class="field">
            <label for="url">
              Site URL <span class="hint">e.g. https://example.com/ — uses one report of your quota.</span>
            </label>
            <input id="url" name="url" type="url" inputMode="url" required placeholder="https://" value={url ?? ""} />
          </div>
          <div>
            <button type="submit">Analyze</button>
          </div>
        </div>
        <div class="field">
          <label>
            <input type="checkbox" name="mode" value="aggressive" /> Also look for plugins and themes the site does not
            show{" "}
            <span class="hint">
              (aggressive: a few hundred small requests to the site, known-vulnerable ones first; off by default)
            </span>
          </label>
        </div>
        <div class="field">
          <label>
            <input type="checkbox" name="lab" value="true" /> Also load the page in a real browser (lab: Core Web Vitals
            — LCP, CLS, TBT — with each slow script, shift and file named by plugin or theme){" "}
            <span class="hint">(off by default)</span>
          </label>
          <div class="row">
            <div class="field">
              <label for="lab_device">Browser as</label>
              <select id="lab_device" name="lab_device">
                <option value="mobile" selected>
                  a mobile phone (Lighthouse's mid-range phone)
                </option>
                <option value="desktop">a desktop computer</option>
              </select>
            </div>
            <div class="field">
              <label for="lab_throttling">Network and CPU</label>
              <select id="lab_throttling" name="lab_throttling">
                <option value="default" selected>
                  slowed down as Lighthouse does (slow 4G on mobile)
                </option>
                <option value="none">as fast as this service's connection (for comparing runs)</option>
              </select>
            </div>
          </div>
        </div>
        <details>
          <summary>Password-protected site (staging)</summary>
          <p class="hint">
            Sent to this site's origin only, never stored or shown; any of them the site echoes is replaced by
            [redacted] in the report.
          </p>
          <div class="row">
            <div class="field">
              <label for="http_user">User name (HTTP basic auth)</label>
              <input id="http_user" name="http_user" autocomplete="off" />
            </div>
            <div class="field">
              <label for="http_password">Password</label>
              <input id="http_password" name="http_password" type="password" autocomplete="new-password" />
            </div>
          </div>
          <div class="field">
            <label for="http_headers">
              Headers{" "}
              <span class="hint">one "Name: value" per line; custom X- headers, CF-Access-Client-Id/-Secret</span>
            </label>
            <textarea id="http_headers" name="http_headers" rows={2} autocomplete="off" />
          </div>
          <div class="field">
            <label for="http_cookies">
              Cookies <span class="hint">name=value; name2=value2</span>
            </label>
            <input id="http_cookies" name="http_cookies" autocomplete="off" />
          </div>
        </details>
      </form>
    </div>
  );
}

/** Where a report came from: the web (its own marker) or the API (with the caller's environment, if any). */
function origin(environment: string | undefined | null): string {
  if (environment === "web") return "made on the web";
  return environment ? `via the API · ${environment}` : "via the API";
}

export const REPORT_HEAD = ["Site", { label: "Date", class: "hide-sm" }, "Grade"];

export function ReportRows({ reports }: { reports: ReportListItem[] }) {
  return (
    <>
      {reports.map((report) => (
        <tr key={report.id}>
          <td>
            <a href={`/reports/${report.id}`} class="mono">
              {report.url}
            </a>
            <div class="small muted">{origin(report.metadata.environment)}</div>
          </td>
          <td class="hide-sm">{formatDate(report.created_at)}</td>
          <td>
            {report.status !== "completed" ? (
              report.status
            ) : report.grade === null ? (
              // Completed without a grade: incomplete (docs/report.md), never a blank that reads as fine.
              <span class="not-checked">incomplete: not graded</span>
            ) : (
              <GradeBadge grade={report.grade} score={report.score} />
            )}
          </td>
        </tr>
      ))}
    </>
  );
}

export function DashboardPage(props: {
  ctx: WebContext;
  query: Record<string, string | undefined>;
  plan: Plan;
  usage: UsageSnapshot;
  rateLimit: number;
  recent: ReportListItem[];
  analyze?: { url?: string; error?: string };
}) {
  const { ctx, plan, usage, recent } = props;
  return (
    <div class="stack">
      <Notice query={props.query} />
      <h1>Dashboard</h1>
      <div class="grid">
        <section class="card stack" aria-labelledby="usage-heading">
          <h2 id="usage-heading">This month</h2>
          <p>
            <strong id="usage-used">{usage.used}</strong> of <strong id="usage-quota">{usage.quota}</strong> reports
            used
            {usage.reserved > 0 ? `, ${usage.reserved} running` : ""} —{" "}
            <strong id="usage-remaining">{usage.remaining}</strong> left.
          </p>
          <UsageMeter used={usage.used} quota={usage.quota} inProgress={usage.reserved} />
          {usage.remaining === 0 ? (
            <p class="alert warning" id="quota-exhausted">
              You have used every report of this month. <a href="/billing">Upgrade your plan</a> to analyze more sites
              now.
            </p>
          ) : null}
          <p class="small muted">Resets {formatDate(usage.period.end)}.</p>
        </section>
        <section class="card stack" aria-labelledby="plan-heading">
          <h2 id="plan-heading">Plan</h2>
          <p>
            <strong id="plan-name">{plan.name}</strong> — {plan.monthlyQuota} reports a month, {props.rateLimit} API
            requests a minute.
          </p>
          <p>
            <a href="/billing">Change plan</a> · <a href="/tokens">API tokens</a>
          </p>
        </section>
      </div>
      <AnalyzeForm ctx={ctx} url={props.analyze?.url} error={props.analyze?.error} />
      <section aria-labelledby="recent-heading">
        <h2 id="recent-heading">Recent reports</h2>
        {recent.length === 0 ? (
          <p class="muted">No reports yet. Analyze a site above, or call the API with a token.</p>
        ) : (
          <Table caption="Recent reports" head={REPORT_HEAD}>
            <ReportRows reports={recent} />
          </Table>
        )}
        <p>
          <a href="/reports">All reports</a>
        </p>
      </section>
    </div>
  );
}
