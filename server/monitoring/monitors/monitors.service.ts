/**
 * Monitors of an account: scheduled audits of one site (and environment). Create, list, read,
 * change, pause, delete, run one now, and what GET /api/sites shows of them. Knows nothing of
 * HTTP; refusals are ApiProblems. The scheduled runs: scheduler.ts; what a finished run tells:
 * regressions.ts.
 */

import { formatAssertions, parseAssertions } from "../../../shared/diff-options.ts";
import type { EventData } from "../../../shared/events.ts";
import {
  type CreateMonitorRequest,
  type Monitor,
  type MonitorList,
  SCHEDULE_KEYWORDS,
  type UpdateMonitorRequest,
} from "../../../shared/monitors-api.ts";
import type { SiteMonitor } from "../../../shared/portfolio-api.ts";
import {
  ANALYSIS_MODES,
  type AnalysisMode,
  DEFAULT_ANALYSIS_MODE,
  type Grade,
  type Report,
  type ReportStatus,
  SEVERITIES,
} from "../../../shared/report.ts";
import { isIncompleteReport, vulnerabilityCoverage } from "../../../shared/report-coverage.ts";
import type { SiteTls, TlsMode } from "../../../shared/site-tls.ts";
import type { TargetPolicy } from "../../analyzer/fetch/target-policy.ts";
import { siteKey, validateTargetUrl } from "../../analyzer/target-url.ts";
import { getPlan } from "../../billing/plans.ts";
import type { Queryable, Sql } from "../../platform/db/database.ts";
import { ApiProblem } from "../../platform/http/problem.ts";
import { isId, newId, siteId } from "../../platform/ids.ts";
import { type LabOptions, parseReportOptions, parseSiteTls } from "../../reports/report-options.ts";
import type { GenerateOutcome, ReportCaller, ReportService } from "../../reports/reports.service.ts";
import { checkSchedule, nextRun } from "./schedule.ts";

/** The lab fields of a create or update request. */
type LabFields = Pick<CreateMonitorRequest, "lab" | "lab_device" | "lab_throttling" | "lab_runs">;

export const DEFAULT_PAGE = 20;
export const MAX_PAGE = 100;

/** The columns of a monitor, with its last run and last skip (monitorSelect). */
export interface MonitorRow {
  id: string;
  account_id: string;
  url: string;
  site_key: string;
  environment: string | null;
  schedule: string;
  mode: AnalysisMode;
  /** The lab run each report asks for (report-options.ts); null for none. */
  lab: LabOptions | null;
  fail_on: string;
  assertions: string;
  /** A staging site's certificate rule (migration 0025): "verify" unless set on the monitor. */
  tls: TlsMode;
  tls_ca: string | null;
  enabled: boolean;
  next_slot: Date;
  next_run_at: Date;
  created_at: Date;
  updated_at: Date;
  lr_report_id: string | null;
  lr_trigger: "schedule" | "manual" | null;
  lr_scheduled_for: Date | null;
  lr_created_at: Date | null;
  lr_status: ReportStatus | null;
  lr_grade: Grade | null;
  lr_gate: "pass" | "fail" | null;
  /** The report's intel, errors and checks that could not run: what it did not check. */
  lr_intel: Report["intel"] | null;
  lr_errors: Report["errors"] | null;
  lr_not_checked: number | null;
  ls_scheduled_for: Date | null;
  ls_created_at: Date | null;
  ls_reason: string | null;
  ls_detail: string | null;
}

/** What the last run's report did not check (shared/report-coverage.ts); nulls until it completed. */
function lastRunCoverage(row: MonitorRow) {
  if (row.lr_status !== "completed") {
    return { incomplete: false, vulnerability_data: null, vulnerabilities_unchecked: [], not_checked: null };
  }
  const coverage = vulnerabilityCoverage({ status: row.lr_status, errors: row.lr_errors ?? [], intel: row.lr_intel });
  return {
    incomplete: isIncompleteReport({ errors: row.lr_errors ?? [] }),
    vulnerability_data: coverage.status,
    vulnerabilities_unchecked: coverage.unchecked,
    not_checked: row.lr_not_checked ?? 0,
  };
}

export function monitorOf(row: MonitorRow): Monitor {
  const lastRun =
    row.lr_report_id && row.lr_trigger && row.lr_scheduled_for && row.lr_status
      ? {
          report_id: row.lr_report_id,
          trigger: row.lr_trigger,
          scheduled_for: row.lr_scheduled_for.toISOString(),
          status: row.lr_status,
          grade: row.lr_grade,
          gate: row.lr_gate,
          ...lastRunCoverage(row),
        }
      : null;
  const skipIsNewer =
    row.ls_created_at !== null && (row.lr_created_at === null || row.ls_created_at > row.lr_created_at);
  return {
    id: row.id,
    url: row.url,
    environment: row.environment,
    schedule: row.schedule,
    mode: row.mode,
    lab: row.lab ?? null,
    fail_on: row.fail_on as Monitor["fail_on"],
    assert: row.assertions,
    tls: row.tls,
    tls_ca: row.tls_ca,
    enabled: row.enabled,
    status: row.enabled ? "active" : "paused",
    next_run_at: row.enabled ? row.next_run_at.toISOString() : null,
    last_run: lastRun,
    last_skip:
      skipIsNewer && row.ls_scheduled_for
        ? {
            scheduled_for: row.ls_scheduled_for.toISOString(),
            reason: row.ls_reason ?? "",
            detail: row.ls_detail ?? "",
          }
        : null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** A monitor as events name it. */
export function eventMonitor(row: Pick<MonitorRow, "id" | "url" | "environment" | "schedule">) {
  return {
    id: row.id,
    url: row.url,
    environment: row.environment,
    schedule: row.schedule,
  } satisfies EventData<"monitor.skipped">["monitor"];
}

const FAIL_ON = [...SEVERITIES, "none"] as const;

const NO_MONITOR = "There is no monitor with this id in your account.";

/** A 400 naming the body field, as schema validation answers. */
function fieldProblem(field: string, detail: string): ApiProblem {
  return new ApiProblem("invalid_request", detail.endsWith(".") ? detail : `${detail}.`, {
    extensions: { errors: [{ location: "body", pointer: `/${field}`, detail }] },
  });
}

export interface Paging {
  before?: string;
  limit?: number;
}

/** The owner of monitors: who creates them (the plan's limit) and whose quota their runs use. */
export type MonitorCaller = ReportCaller;

export class MonitorService {
  constructor(
    private readonly deps: {
      sql: Sql;
      policy: TargetPolicy;
      reports: ReportService;
    },
  ) {}

  /** The url checked by the target policy of reports: its site key, or the problem generate-report answers. */
  private checkUrl(url: string): string {
    const verdict = validateTargetUrl(url, this.deps.policy);
    if (!verdict.ok) throw new ApiProblem(verdict.code, verdict.detail);
    return siteKey(verdict.url);
  }

  private checkSchedule(schedule: string): string {
    const checked = checkSchedule(schedule);
    if (!checked.ok) throw fieldProblem("schedule", checked.detail);
    const text = schedule.trim();
    return (SCHEDULE_KEYWORDS as readonly string[]).includes(text.toLowerCase()) ? text.toLowerCase() : text;
  }

  /**
   * What the API's schema checks already, checked again here for callers without it (the web
   * pages): fail_on, mode, environment.
   */
  private checkFields(input: { fail_on?: string; mode?: string; environment?: string | null }): void {
    if (input.fail_on !== undefined && !(FAIL_ON as readonly string[]).includes(input.fail_on))
      throw fieldProblem(
        "fail_on",
        `fail_on must be one of ${FAIL_ON.join(", ")}, got "${input.fail_on.slice(0, 40)}"`,
      );
    if (input.mode !== undefined && !(ANALYSIS_MODES as readonly string[]).includes(input.mode))
      throw fieldProblem("mode", `mode must be one of ${ANALYSIS_MODES.join(", ")}`);
    const environment = input.environment;
    if (environment !== undefined && environment !== null && (environment.length < 1 || environment.length > 64))
      throw fieldProblem("environment", "environment must be 1 to 64 characters");
  }

  private checkAssert(assert: string | undefined): string {
    try {
      return formatAssertions(parseAssertions(assert ?? ""));
    } catch (error) {
      throw fieldProblem("assert", `assert: ${(error as Error).message}`);
    }
  }

  /** The lab options a create or update leaves the monitor with (null: none); bad ones are the request's problem. */
  private labOf(input: LabFields, current: LabOptions | null = null): LabOptions | null {
    const touched = (["lab", "lab_device", "lab_throttling", "lab_runs"] as const).some(
      (key) => input[key] !== undefined,
    );
    if (!touched) return current;
    const lab = input.lab ?? current !== null;
    if (!lab && input.lab === false) {
      const named = (["lab_device", "lab_throttling", "lab_runs"] as const).filter((key) => input[key] !== undefined);
      if (named.length > 0) throw fieldProblem(named[0] as string, `${named.join(", ")} only apply with "lab": true`);
      return null;
    }
    try {
      return (
        parseReportOptions({
          lab,
          lab_device: input.lab_device ?? current?.device,
          lab_throttling: input.lab_throttling ?? current?.throttling,
          lab_runs: input.lab_runs ?? current?.runs,
        }).lab ?? null
      );
    } catch (error) {
      if (error instanceof ApiProblem) throw fieldProblem("lab", error.detail);
      throw error;
    }
  }

  async create(caller: MonitorCaller, input: CreateMonitorRequest, now = new Date()): Promise<Monitor> {
    this.checkFields(input);
    const siteTls = parseSiteTls(input.tls, input.tls_ca);
    const lab = this.labOf(input);
    const key = this.checkUrl(input.url);
    const schedule = this.checkSchedule(input.schedule);
    const assertions = this.checkAssert(input.assert);
    const plan = getPlan(caller.planId);
    const id = newId("mon");
    const next = nextRun(id, schedule, now);
    const inserted = await this.deps.sql.begin(async (tx) => {
      // One creation per account at a time: the count and the insert cannot interleave.
      await tx`select pg_advisory_xact_lock(hashtext(${`wpreport:monitors:${caller.accountId}`}))`;
      const [count] = await tx<{ n: number }[]>`
        select count(*)::int as n from monitors where account_id = ${caller.accountId}`;
      if ((count?.n ?? 0) >= plan.maxMonitors) return false;
      await tx`
        insert into monitors (id, account_id, url, site_key, environment, schedule, mode, fail_on, assertions,
                              tls, tls_ca, next_slot, next_run_at, lab)
        values (${id}, ${caller.accountId}, ${input.url.trim()}, ${key}, ${input.environment ?? null}, ${schedule},
                ${input.mode ?? DEFAULT_ANALYSIS_MODE}, ${input.fail_on ?? "high"}, ${assertions},
                ${siteTls?.mode === "insecure" ? "insecure" : "verify"},
                ${siteTls?.mode === "private_ca" ? siteTls.ca : null}, ${next.slot}, ${next.runAt},
                ${lab ? tx.json(lab as never) : null})`;
      return true;
    });
    if (!inserted)
      throw new ApiProblem(
        "monitor_limit_reached",
        `The ${plan.name} plan allows ${plan.maxMonitors} monitor${plan.maxMonitors === 1 ? "" : "s"}. Delete one you no longer need, or upgrade the plan for more.`,
        { extensions: { max_monitors: plan.maxMonitors } },
      );
    return this.get(caller.accountId, id);
  }

  async list(accountId: string, paging: Paging = {}): Promise<MonitorList> {
    const { sql } = this.deps;
    const limit = Math.min(Math.max(paging.limit ?? DEFAULT_PAGE, 1), MAX_PAGE);
    let cursor: { created_at: Date; id: string } | undefined;
    if (paging.before !== undefined) {
      [cursor] = isId("mon", paging.before)
        ? await sql<{ created_at: Date; id: string }[]>`
            select created_at, id from monitors where id = ${paging.before} and account_id = ${accountId}`
        : [];
      if (!cursor) throw new ApiProblem("invalid_request", "The before cursor is not a monitor of this account.");
    }
    const rows = await this.select(
      sql,
      sql`m.account_id = ${accountId}
        ${cursor ? sql`and (m.created_at, m.id) < (${cursor.created_at}, ${cursor.id})` : sql``}`,
      limit + 1,
    );
    const page = rows.slice(0, limit).map(monitorOf);
    return { data: page, next_cursor: rows.length > limit ? (page.at(-1)?.id ?? null) : null };
  }

  async get(accountId: string, monitorId: string): Promise<Monitor> {
    return monitorOf(await this.mustRow(accountId, monitorId));
  }

  async update(accountId: string, monitorId: string, patch: UpdateMonitorRequest, now = new Date()): Promise<Monitor> {
    const current = await this.mustRow(accountId, monitorId);
    this.checkFields(patch);
    const url = patch.url === undefined ? current.url : patch.url.trim();
    const key = patch.url === undefined ? current.site_key : this.checkUrl(patch.url);
    const schedule = patch.schedule === undefined ? current.schedule : this.checkSchedule(patch.schedule);
    const assertions = patch.assert === undefined ? current.assertions : this.checkAssert(patch.assert);
    const enabled = patch.enabled ?? current.enabled;
    const lab = this.labOf(patch, current.lab);
    // A new schedule, or a resumed monitor, starts from now: runs missed while paused are not made up.
    const reschedule = schedule !== current.schedule || (enabled && !current.enabled);
    const environment = patch.environment === undefined ? current.environment : patch.environment;
    // The rule as it will stand, checked whole: a CA kept from before cannot meet a new tls: insecure.
    const tls = patch.tls ?? current.tls;
    const tlsCa = patch.tls_ca === undefined ? current.tls_ca : patch.tls_ca;
    const siteTls = parseSiteTls(tls, tlsCa ?? undefined);
    const { sql } = this.deps;
    // The next run is written only when it changes: a tick may have advanced it since it was read.
    const next = reschedule ? nextRun(monitorId, schedule, now) : undefined;
    const rows = await sql`
      update monitors set url = ${url}, site_key = ${key}, environment = ${environment}, schedule = ${schedule},
        mode = ${patch.mode ?? current.mode}, fail_on = ${patch.fail_on ?? current.fail_on}, assertions = ${assertions},
        tls = ${siteTls?.mode === "insecure" ? "insecure" : "verify"},
        tls_ca = ${siteTls?.mode === "private_ca" ? siteTls.ca : null},
        enabled = ${enabled}, lab = ${lab ? sql.json(lab as never) : null}, updated_at = now()
        ${next ? sql`, next_slot = ${next.slot}, next_run_at = ${next.runAt}` : sql``}
      where id = ${monitorId} and account_id = ${accountId}
      returning id`;
    if (rows.length === 0) throw new ApiProblem("not_found", NO_MONITOR);
    return this.get(accountId, monitorId);
  }

  /** Deletes the monitor and its runs; its reports stay (with their monitor_id). */
  async delete(accountId: string, monitorId: string): Promise<void> {
    if (!isId("mon", monitorId)) throw new ApiProblem("not_found", NO_MONITOR);
    const rows = await this.deps.sql`
      delete from monitors where id = ${monitorId} and account_id = ${accountId} returning id`;
    if (rows.length === 0) throw new ApiProblem("not_found", NO_MONITOR);
  }

  /**
   * Runs the monitor now, paused or not: a report asked for as POST /api/generate-report with
   * `Prefer: respond-async` asks it (the same queue, limits and quota; one credit), answered
   * 202 with the queued report. A refusal (quota, limits) is the caller's answer, not an event.
   */
  async runNow(
    caller: MonitorCaller,
    monitorId: string,
    options: { idempotencyKey?: string } = {},
  ): Promise<GenerateOutcome> {
    const row = await this.mustRow(caller.accountId, monitorId);
    const outcome = await this.deps.reports.generate(caller, runInput(row), {
      respondAsync: true,
      monitorId: row.id,
      idempotencyKey: options.idempotencyKey,
    });
    if (!outcome.replayed) {
      await this.deps.sql`
        insert into monitor_runs (monitor_id, scheduled_for, trigger, status, report_id)
        values (${row.id}, ${new Date(outcome.report.created_at)}, 'manual', 'queued', ${outcome.report.id})
        on conflict do nothing`;
    }
    return outcome;
  }

  /** GET /api/sites: each site's monitor (the one that runs next when several watch it), by site id. */
  async forSites(accountId: string, sites: { id: string }[]): Promise<Map<string, SiteMonitor>> {
    const wanted = new Set(sites.map((site) => site.id));
    const found = new Map<string, SiteMonitor & { order: number }>();
    if (wanted.size === 0) return found;
    const { sql } = this.deps;
    const rows = await this.select(sql, sql`m.account_id = ${accountId}`, 10_000);
    for (const row of rows) {
      const id = siteId(accountId, row.site_key, row.environment);
      if (!wanted.has(id)) continue;
      // Active before paused, then the sooner run.
      const order = (row.enabled ? 0 : 1e15) + row.next_run_at.getTime();
      const current = found.get(id);
      if (current && current.order <= order) continue;
      const monitor = monitorOf(row);
      found.set(id, {
        id: row.id,
        schedule: row.schedule,
        paused: !row.enabled,
        next_run_at: monitor.next_run_at,
        last_run_at: row.lr_created_at?.toISOString() ?? null,
        last_report_id: row.lr_report_id,
        order,
      });
    }
    return new Map([...found].map(([id, { order: _order, ...monitor }]) => [id, monitor]));
  }

  private async mustRow(accountId: string, monitorId: string): Promise<MonitorRow> {
    if (!isId("mon", monitorId)) throw new ApiProblem("not_found", NO_MONITOR);
    const { sql } = this.deps;
    const [row] = await this.select(sql, sql`m.id = ${monitorId} and m.account_id = ${accountId}`, 1);
    if (!row) throw new ApiProblem("not_found", NO_MONITOR);
    return row;
  }

  /** Monitors with their last run (that made a report) and last skipped run, newest first. */
  private select(db: Queryable, where: ReturnType<Sql>, limit: number): Promise<MonitorRow[]> {
    return db<MonitorRow[]>`
      select m.*,
        lr.report_id as lr_report_id, lr.trigger as lr_trigger, lr.scheduled_for as lr_scheduled_for,
        lr.created_at as lr_created_at, lr.status as lr_status, lr.grade as lr_grade, lr.gate_result as lr_gate,
        lr.intel as lr_intel, lr.errors as lr_errors, lr.not_checked as lr_not_checked,
        ls.scheduled_for as ls_scheduled_for, ls.created_at as ls_created_at, ls.reason as ls_reason,
        ls.detail as ls_detail
      from monitors m
      left join lateral (
        select mr.report_id, mr.trigger, mr.scheduled_for, mr.created_at, r.status, r.grade, r.gate_result,
          r.body -> 'intel' as intel, r.body -> 'errors' as errors,
          coalesce(
            (r.body -> 'summary' ->> 'not_checked')::int,
            case when jsonb_typeof(r.body -> 'not_checked') = 'array' then jsonb_array_length(r.body -> 'not_checked') end
          ) as not_checked
        from monitor_runs mr join reports r on r.id = mr.report_id
        where mr.monitor_id = m.id and mr.status = 'queued'
        order by mr.created_at desc limit 1
      ) lr on true
      left join lateral (
        select scheduled_for, created_at, reason, detail from monitor_runs
        where monitor_id = m.id and status = 'skipped'
        order by created_at desc limit 1
      ) ls on true
      where ${where}
      order by m.created_at desc, m.id desc
      limit ${limit}`;
  }
}

/**
 * What a monitor's run asks for: its URL, its environment as the report's metadata, its mode, its
 * lab run, and the certificate rule set on the monitor (none unless it was: runs never relax TLS
 * on their own).
 */
export function runInput(row: Pick<MonitorRow, "url" | "environment" | "mode" | "tls" | "tls_ca" | "lab">) {
  const siteTls: SiteTls | undefined =
    row.tls_ca !== null
      ? { mode: "private_ca", ca: row.tls_ca }
      : row.tls === "insecure"
        ? { mode: "insecure" }
        : undefined;
  return {
    url: row.url,
    metadata: row.environment ? { environment: row.environment } : undefined,
    options: { mode: row.mode, ...(siteTls ? { siteTls } : {}), ...(row.lab ? { lab: row.lab } : {}) },
  };
}
