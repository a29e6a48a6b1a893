/**
 * The pages of monitors: the list with a form to add one (/monitors) and one monitor
 * (/monitors/{id}: its last run and last skip, edit, pause or resume, run now, delete).
 * Server-rendered like every page (Preact escapes every text and attribute); the rules are
 * MonitorService's, the same the API goes through.
 */
import type { Monitor } from "../../../shared/monitors-api.ts";
import { SEVERITIES } from "../../../shared/report.ts";
import { checksNotRunText, vulnerabilityCoverageLine } from "../../../shared/report-coverage.ts";
import type { WebContext } from "../../web/context.ts";
import { FormError, formatDate, GradeBadge, Table } from "../../web/pages/common.tsx";
import { Csrf, Notice } from "../../web/render.tsx";

/** What a person types into the forms; kept on a refusal so nothing typed is lost. */
export interface MonitorForm {
  url: string;
  schedule: string;
  environment: string;
  fail_on: string;
  assert: string;
}

export const EMPTY_MONITOR_FORM: MonitorForm = {
  url: "",
  schedule: "daily",
  environment: "production",
  fail_on: "high",
  assert: "",
};

export function formOf(monitor: Monitor): MonitorForm {
  return {
    url: monitor.url,
    schedule: monitor.schedule,
    environment: monitor.environment ?? "",
    fail_on: monitor.fail_on,
    assert: monitor.assert,
  };
}

/** Notices after a redirect, by key (never text from the query string itself). */
const NOTICES: Record<string, string> = {
  monitor_created: "Monitor added. Its first run starts at the time shown.",
  monitor_saved: "Monitor saved.",
  monitor_paused: "Monitor paused: no scheduled runs until you resume it.",
  monitor_resumed: "Monitor resumed: the next run is shown below.",
  monitor_deleted: "Monitor deleted. Its reports stay in your history.",
};

function Status({ monitor }: { monitor: Monitor }) {
  if (monitor.status === "paused") return <span class="status-revoked">paused</span>;
  return <span class="status-active">active</span>;
}

function Gate({ gate }: { gate: "pass" | "fail" | null }) {
  if (gate === "fail") return <span class="sev-high">regressed</span>;
  if (gate === "pass") return <span class="status-active">passed</span>;
  return <span class="muted">not judged yet</span>;
}

/** What the last run's report did not check, in the words every view uses (shared/report-coverage.ts). */
function NotChecked({ run }: { run: NonNullable<Monitor["last_run"]> }) {
  if (run.status !== "completed" || run.vulnerability_data === null) return null;
  const lines = [
    run.incomplete ? "incomplete: not graded" : null,
    vulnerabilityCoverageLine({
      status: run.vulnerability_data,
      unchecked: run.vulnerabilities_unchecked,
      incomplete: run.incomplete,
    }),
    checksNotRunText(run.not_checked ?? 0),
  ].filter((line): line is string => line !== null);
  if (lines.length === 0) return null;
  return (
    <div class="small not-checked" data-not-checked={run.report_id}>
      {lines.join(" · ")}
    </div>
  );
}

function LastRun({ monitor }: { monitor: Monitor }) {
  const run = monitor.last_run;
  if (!run) return <span class="muted">no run yet</span>;
  return (
    <span>
      <a href={`/reports/${run.report_id}`}>{formatDate(run.scheduled_for)}</a> <GradeBadge grade={run.grade} />{" "}
      {run.status === "completed" ? <Gate gate={run.gate} /> : <span class="muted">{run.status}</span>}
      <NotChecked run={run} />
    </span>
  );
}

/** The fields of the add and edit forms; `prefix` keeps ids unique on a page. */
function MonitorFields({ form, withUrl }: { form: MonitorForm; withUrl: boolean }) {
  return (
    <>
      {withUrl ? (
        <div class="field">
          <label for="url">
            Site URL <span class="hint">e.g. https://client.example.com/</span>
          </label>
          <input id="url" name="url" type="url" inputMode="url" required maxLength={2048} value={form.url} />
        </div>
      ) : null}
      <div class="field">
        <label for="schedule">
          Schedule{" "}
          <span class="hint">
            hourly, daily, weekly, or a cron expression in UTC (minute hour day month weekday), e.g. 30 6 * * 1-5
          </span>
        </label>
        <input
          id="schedule"
          name="schedule"
          type="text"
          required
          maxLength={100}
          list="schedule-choices"
          autocomplete="off"
          value={form.schedule}
        />
        <datalist id="schedule-choices">
          <option value="hourly" />
          <option value="daily" />
          <option value="weekly" />
        </datalist>
      </div>
      <div class="field">
        <label for="environment">
          Environment <span class="hint">Optional: runs are compared with earlier reports of this environment.</span>
        </label>
        <input id="environment" name="environment" type="text" maxLength={64} value={form.environment} />
      </div>
      <div class="field">
        <label for="fail_on">Regression severity</label>
        <select id="fail_on" name="fail_on" aria-describedby="fail_on-hint">
          {[...SEVERITIES, "none"].map((severity) => (
            <option key={severity} value={severity} selected={form.fail_on === severity}>
              {severity === "none" ? "none: only assertions" : `${severity} and above`}
            </option>
          ))}
        </select>
        <p id="fail_on-hint" class="hint">
          A check that passed in the baseline and fails now at this severity or above counts as a regression.
        </p>
      </div>
      <div class="field">
        <label for="assert">
          Assertions <span class="hint">Optional, as the Action's assert input: security.*: error, one per line.</span>
        </label>
        <textarea id="assert" name="assert" rows={3} cols={40} autocomplete="off">
          {form.assert}
        </textarea>
      </div>
    </>
  );
}

export function MonitorsPage(props: {
  ctx: WebContext;
  query: Record<string, string | undefined>;
  monitors: Monitor[];
  nextCursor: string | null;
  maxMonitors: number;
  form?: MonitorForm;
  error?: string;
}) {
  const { ctx, monitors } = props;
  return (
    <div class="stack">
      <Notice query={props.query} notices={NOTICES} />
      <h1>Monitors</h1>
      <p class="muted">
        A monitor audits a site on a schedule, one report (and one credit) per run, and compares each run with the
        site's last passing report, as the GitHub Action does. Set up <a href="/alerts">alerts</a> to be told when a run
        regresses or is skipped. Your plan allows {props.maxMonitors} monitor{props.maxMonitors === 1 ? "" : "s"}.
      </p>
      <div class="card stack">
        <h2 id="create-heading">Add a monitor</h2>
        <FormError message={props.error} />
        <form method="post" action="/monitors" aria-labelledby="create-heading">
          <Csrf ctx={ctx} />
          <MonitorFields form={props.form ?? EMPTY_MONITOR_FORM} withUrl />
          <button type="submit">Add monitor</button>
        </form>
      </div>
      <section aria-labelledby="monitors-heading">
        <h2 id="monitors-heading">Your monitors</h2>
        {monitors.length === 0 ? (
          <p class="muted">No monitors yet.</p>
        ) : (
          <Table caption="Monitors" stack head={["Site", "Schedule", "State", "Next run", "Last run"]}>
            {monitors.map((monitor) => (
              <tr key={monitor.id} data-monitor={monitor.id} class={monitor.enabled ? undefined : "inactive"}>
                <td data-label="Site">
                  <a href={`/monitors/${monitor.id}`} class="mono">
                    {monitor.url}
                  </a>
                  {monitor.environment ? <div class="small muted">{monitor.environment}</div> : null}
                </td>
                <td data-label="Schedule" class="mono">
                  {monitor.schedule}
                </td>
                <td data-label="State">
                  <Status monitor={monitor} />
                  {monitor.last_skip ? (
                    <div class="small sev-medium">last run skipped: {monitor.last_skip.reason}</div>
                  ) : null}
                </td>
                <td data-label="Next run">{formatDate(monitor.next_run_at)}</td>
                <td data-label="Last run">
                  <LastRun monitor={monitor} />
                </td>
              </tr>
            ))}
          </Table>
        )}
        {props.nextCursor ? (
          <p>
            <a href={`/monitors?before=${props.nextCursor}`}>Older monitors</a>
          </p>
        ) : null}
      </section>
    </div>
  );
}

export function MonitorPage(props: {
  ctx: WebContext;
  query: Record<string, string | undefined>;
  monitor: Monitor;
  form?: MonitorForm;
  error?: string;
}) {
  const { ctx, monitor } = props;
  const action = (path: string) => `/monitors/${monitor.id}/${path}`;
  return (
    <div class="stack">
      <Notice query={props.query} notices={NOTICES} />
      <p>
        <a href="/monitors">← Monitors</a>
      </p>
      <h1>
        Monitor of <span class="mono">{monitor.url}</span>
      </h1>
      <div class="card stack">
        <dl class="facts">
          <dt>State</dt>
          <dd>
            <Status monitor={monitor} />
          </dd>
          <dt>Schedule</dt>
          <dd class="mono">{monitor.schedule}</dd>
          <dt>Environment</dt>
          <dd>{monitor.environment ?? "—"}</dd>
          <dt>Next run</dt>
          <dd>{monitor.enabled ? formatDate(monitor.next_run_at) : "none while paused"}</dd>
          <dt>Last run</dt>
          <dd>
            <LastRun monitor={monitor} />
          </dd>
          {monitor.last_skip ? (
            <>
              <dt>Last skipped run</dt>
              <dd>
                {formatDate(monitor.last_skip.scheduled_for)}: <span class="mono">{monitor.last_skip.reason}</span> —{" "}
                {monitor.last_skip.detail}
              </dd>
            </>
          ) : null}
        </dl>
        <div class="actions">
          <form method="post" action={action("run")}>
            <Csrf ctx={ctx} />
            <button type="submit">Run now</button>
          </form>
          <form method="post" action={action(monitor.enabled ? "pause" : "resume")}>
            <Csrf ctx={ctx} />
            <button type="submit" class="secondary">
              {monitor.enabled ? "Pause" : "Resume"}
            </button>
          </form>
          <form method="post" action={action("delete")} data-confirm="Delete this monitor? Its reports stay.">
            <Csrf ctx={ctx} />
            <button type="submit" class="danger">
              Delete
            </button>
          </form>
        </div>
        <p class="small muted">Run now uses one credit, as any report.</p>
      </div>
      <div class="card stack">
        <h2 id="edit-heading">Edit</h2>
        <FormError message={props.error} />
        <form method="post" action={`/monitors/${monitor.id}`} aria-labelledby="edit-heading">
          <Csrf ctx={ctx} />
          <MonitorFields form={props.form ?? formOf(monitor)} withUrl />
          <button type="submit">Save monitor</button>
        </form>
      </div>
    </div>
  );
}
