/**
 * Reading an account's reports back: filtered, cursor-paged listings (GET /api/reports), and
 * the baseline rule with the gate verdicts it rests on (docs/diff.md#the-baseline). Separate
 * from ReportService, which writes reports. A report whose synchronous call never got its
 * answer (not delivered, docs/plans.md "What is charged") is in neither until its client
 * reads it by id.
 */
import type { ReportListItem } from "../../shared/api.ts";
import { diff } from "../../shared/diff.ts";
import { type Baseline, formatAssertions, type ParsedDiffOptions } from "../../shared/diff-options.ts";
import type { BaselineChoice, Diff, GateVerdict } from "../../shared/diff-schema.ts";
import type { Report, ReportStatus } from "../../shared/report.ts";
import { siteKey } from "../analyzer/target-url.ts";
import type { Queryable, Sql } from "../platform/db/database.ts";
import { ApiProblem } from "../platform/http/problem.ts";
import { isId } from "../platform/ids.ts";
import { type GateRow, gateOf, type ReportListRow, reportListColumns, reportListItem } from "./report-list.ts";

export interface ListFilters {
  /** Any URL of the site; compared by its normalised site key. */
  url?: string;
  environment?: string;
  gitRef?: string;
  status?: ReportStatus;
  /** Part of the URL, case-insensitive (the web interface's search box). */
  search?: string;
  grade?: string;
  /** Cursor: only reports older than this one. */
  before?: string;
  limit?: number;
}

export const MAX_PAGE = 100;
export const DEFAULT_PAGE = 20;

/** The rules the service looks a baseline up by (a report id or none need no lookup). */
export type BaselineLookup = "last-passing" | "latest";

/** What a judgement records: its verdict, the baseline, the rule and the thresholds. */
export interface GateRecord {
  result: "pass" | "fail";
  baseId: string | null;
  rule: GateVerdict["rule"];
  options: Record<string, unknown>;
}

interface Candidate {
  body: Report;
  created_at: Date;
}

export function siteKeyOf(url: string): string {
  try {
    const parsed = new URL(url.trim());
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error("scheme");
    return siteKey(parsed);
  } catch {
    throw new ApiProblem(
      "invalid_request",
      "The url filter must be an absolute http(s) URL, e.g. https://example.com/.",
    );
  }
}

export class ReportHistoryService {
  constructor(private readonly sql: Sql) {}

  /**
   * The same service reading and writing through `tx`: a listener of report outcomes judges a
   * report inside the transaction that stores it (monitors, monitoring/monitors/regressions.ts).
   */
  within(tx: Queryable): ReportHistoryService {
    return new ReportHistoryService(tx as Sql);
  }

  /**
   * GET /api/report/{id}/diff: the report compared with its baseline by `base`'s rule, with the
   * verdict for `options` and the baseline's reason. The first judgement of a report against a
   * rule (not `none`) is recorded as its gate verdict (recordGate), which `last-passing` rests on.
   */
  async judge(
    accountId: string,
    headId: string,
    request: { base: Baseline; options: ParsedDiffOptions; preferRef?: string },
  ): Promise<Diff> {
    const { base: rule, options } = request;
    const head = await this.report(accountId, headId);
    if (!head) throw new ApiProblem("not_found", "There is no report with this id in your account.");
    let base: Report | null = null;
    let choice: BaselineChoice;
    if (rule === "last-passing" || rule === "latest") {
      const preferRef = rule === "last-passing" ? request.preferRef : undefined;
      ({ report: base, choice } = await this.baseline(accountId, head, rule as BaselineLookup, preferRef));
    } else if (rule === "none") {
      choice = {
        rule: "none",
        id: null,
        reason: "baseline none: nothing is compared, so only budgets and error assertions can fail",
      };
    } else {
      base = await this.report(accountId, rule);
      if (!base) throw new ApiProblem("not_found", "There is no base report with this id in your account.");
      choice = { rule: "report", id: base.id, reason: `${base.id} was given as the baseline` };
    }
    const result = diff(base, head, options, choice);
    // base=none compares nothing and records nothing.
    result.gate =
      choice.rule === "none"
        ? await this.gate(accountId, head.id)
        : await this.recordGate(accountId, head.id, {
            result: result.verdict.result,
            baseId: result.base_id,
            rule: choice.rule,
            options: {
              fail_on: options.failOn,
              max_score_drop: options.maxScoreDrop,
              budgets: options.budgets,
              assert: formatAssertions(options.assertions),
              ...(choice.rule === "last-passing" && request.preferRef !== undefined
                ? { prefer_ref: request.preferRef }
                : {}),
            },
          });
    return result;
  }

  /** One report of the account by id, or null. */
  private async report(accountId: string, id: string): Promise<Report | null> {
    if (!isId("rep", id)) return null;
    const [row] = await this.sql<{ body: Report }[]>`
      select body from reports where id = ${id} and account_id = ${accountId}`;
    return row?.body ?? null;
  }

  /** Newest first; `next_cursor` is the id to pass as `before` for the next page, null at the end. */
  async list(accountId: string, filters: ListFilters): Promise<{ data: ReportListItem[]; next_cursor: string | null }> {
    const { sql } = this;
    const limit = Math.min(Math.max(filters.limit ?? DEFAULT_PAGE, 1), MAX_PAGE);
    let cursor: { created_at: Date; id: string } | undefined;
    if (filters.before !== undefined) {
      const [row] = isId("rep", filters.before)
        ? await sql<{ created_at: Date; id: string }[]>`
            select created_at, id from reports where id = ${filters.before} and account_id = ${accountId}`
        : [];
      if (!row) throw new ApiProblem("invalid_request", "The before cursor is not a report of this account.");
      cursor = row;
    }
    const key = filters.url !== undefined ? siteKeyOf(filters.url) : undefined;
    const rows = await sql<ReportListRow[]>`
      select ${reportListColumns(sql)}
      from reports
      where account_id = ${accountId} and delivered_at is not null
        ${key !== undefined ? sql`and site_key = ${key}` : sql``}
        ${filters.environment !== undefined ? sql`and environment = ${filters.environment}` : sql``}
        ${filters.gitRef !== undefined ? sql`and git_ref = ${filters.gitRef}` : sql``}
        ${filters.status !== undefined ? sql`and status = ${filters.status}` : sql``}
        ${filters.search ? sql`and url ilike ${`%${filters.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`}` : sql``}
        ${filters.grade !== undefined ? sql`and grade = ${filters.grade}` : sql``}
        ${cursor ? sql`and (created_at, id) < (${cursor.created_at}, ${cursor.id})` : sql``}
      order by created_at desc, id desc
      limit ${limit + 1}`;
    const page = rows.slice(0, limit).map(reportListItem);
    return { data: page, next_cursor: rows.length > limit ? (page.at(-1)?.id ?? null) : null };
  }

  /** The newest completed report of the same site (and environment) created before `report`: the `latest` rule. */
  async previous(accountId: string, report: Report): Promise<Report | undefined> {
    return (await this.earlier(accountId, report, "newest"))?.body;
  }

  /**
   * The baseline of `head` by `rule`, with the reason in plain words (docs/diff.md#the-baseline).
   *
   * `last-passing`, among the earlier completed reports of the same site and environment:
   * 1. with `preferRef` (a pull request's default branch, e.g. refs/heads/main), the newest that
   *    passed the gate on that ref;
   * 2. the newest that passed the gate;
   * 3. when none ever passed, the newest that no gate judged (made by the API or the web without
   *    a diff, or compared with base=none);
   * 4. when every one was judged and failed, the first of them, so that every regression since
   *    then still counts;
   * 5. none: the first report of the site and environment.
   * `latest`: the newest earlier completed report, passed or not.
   */
  async baseline(
    accountId: string,
    head: Report,
    rule: BaselineLookup,
    preferRef?: string,
  ): Promise<{ report: Report | null; choice: BaselineChoice }> {
    const environment = head.metadata.environment;
    const where = `${siteKeyOfReport(head)} (${environment !== undefined ? `environment ${environment}` : "no environment"})`;
    const named = (candidate: Candidate) => `${candidate.body.id} (${candidate.created_at.toISOString()})`;
    const chose = (candidate: Candidate | undefined, reason: string, none: string) => ({
      report: candidate?.body ?? null,
      choice: { rule, id: candidate?.body.id ?? null, reason: candidate ? reason : none },
    });
    if (rule === "latest") {
      const latest = await this.earlier(accountId, head, "newest");
      return chose(
        latest,
        `baseline latest: ${latest ? named(latest) : ""} is the newest earlier completed report of ${where}, whether or not it passed the gate`,
        `baseline latest: ${where} has no earlier completed report, so nothing is compared`,
      );
    }
    if (preferRef !== undefined) {
      const onRef = await this.earlier(accountId, head, "newest", { gate: "pass", gitRef: preferRef, graded: true });
      if (onRef)
        return chose(
          onRef,
          `${named(onRef)} is the newest earlier report of ${where} on ${preferRef} (the default branch) that passed the gate`,
          "",
        );
    }
    // A report with no grade (incomplete: the site was down, refused us, most probes failed)
    // says nothing about the site, so it is never a baseline, whatever its gate said.
    const passing = await this.earlier(accountId, head, "newest", { gate: "pass", graded: true });
    if (passing)
      return chose(
        passing,
        `${named(passing)} is the newest earlier report of ${where} that passed the gate${preferRef !== undefined ? ` (none on ${preferRef} has passed it)` : ""}`,
        "",
      );
    const unjudged = await this.earlier(accountId, head, "newest", { gate: "unjudged", graded: true });
    if (unjudged)
      return chose(
        unjudged,
        `no earlier report of ${where} passed the gate; ${named(unjudged)} is the newest earlier one no gate judged (made without a diff against a baseline)`,
        "",
      );
    const first = await this.earlier(accountId, head, "oldest", { graded: true });
    return chose(
      first,
      `no earlier report of ${where} passed the gate (each one failed it); ${first ? named(first) : ""} is the first of them, so every regression since then still counts`,
      `${where} has no earlier graded report: this is the first, and nothing is compared`,
    );
  }

  /**
   * Records the head's gate verdict unless it has one: the first judgement of a completed
   * report stands. Returns the verdict the report carries afterwards (this one, or the earlier).
   */
  async recordGate(accountId: string, reportId: string, record: GateRecord): Promise<GateVerdict | null> {
    const { sql } = this;
    const [updated] = await sql<GateRow[]>`
      update reports
      set gate_result = ${record.result}, gate_base_id = ${record.baseId}, gate_rule = ${record.rule},
          gate_options = ${sql.json(record.options as never)}, gate_judged_at = now()
      where id = ${reportId} and account_id = ${accountId} and status = 'completed' and gate_result is null
      returning gate_result, gate_base_id, gate_rule, gate_judged_at`;
    if (updated) return gateOf(updated);
    return this.gate(accountId, reportId);
  }

  /** The report's recorded gate verdict; null when it has none (or there is no such report). */
  async gate(accountId: string, reportId: string): Promise<GateVerdict | null> {
    const [row] = await this.sql<GateRow[]>`
      select gate_result, gate_base_id, gate_rule, gate_judged_at from reports
      where id = ${reportId} and account_id = ${accountId}`;
    return row ? gateOf(row) : null;
  }

  /**
   * One earlier completed report of the head's site and environment (created before it): the
   * newest or the oldest, optionally only those whose gate passed, or that no gate judged, or
   * of one git ref.
   */
  private async earlier(
    accountId: string,
    head: Report,
    which: "newest" | "oldest",
    filter: { gate?: "pass" | "unjudged"; gitRef?: string; graded?: boolean } = {},
  ): Promise<Candidate | undefined> {
    const { sql } = this;
    const environment = head.metadata.environment;
    const [row] = await sql<Candidate[]>`
      select r.body, r.created_at from reports r, reports head
      where head.id = ${head.id} and head.account_id = ${accountId}
        and r.account_id = ${accountId} and r.site_key = head.site_key and r.status = 'completed'
        and r.delivered_at is not null
        and r.id <> head.id and (r.created_at, r.id) < (head.created_at, head.id)
        ${environment !== undefined ? sql`and r.environment = ${environment}` : sql`and r.environment is null`}
        ${filter.gate === "pass" ? sql`and r.gate_result = 'pass'` : filter.gate === "unjudged" ? sql`and r.gate_result is null` : sql``}
        ${filter.gitRef !== undefined ? sql`and r.git_ref = ${filter.gitRef}` : sql``}
        ${filter.graded ? sql`and r.grade is not null` : sql``}
      order by ${which === "newest" ? sql`r.created_at desc, r.id desc` : sql`r.created_at asc, r.id asc`}
      limit 1`;
    return row;
  }
}

/** The site as people read it in a reason: the report's normalised site key, else its URL. */
function siteKeyOfReport(report: Report): string {
  try {
    return siteKeyOf(report.url);
  } catch {
    return report.url;
  }
}
