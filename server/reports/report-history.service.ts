/**
 * Reading an account's reports back: filtered, cursor-paged listings (GET /api/reports) and
 * "the newest earlier report of this site" for baselines. Separate from ReportService,
 * which writes reports. A report whose synchronous call never got its answer (not delivered,
 * docs/plans.md "What is charged") is in neither until its client reads it by id.
 */
import type { ReportListItem } from "../../shared/api.ts";
import type { Grade, Report, ReportMetadata, ReportStatus } from "../../shared/report.ts";
import { siteKey } from "../analyzer/target-url.ts";
import type { Sql } from "../db/database.ts";
import { ApiProblem } from "../http/problem.ts";
import { isId } from "../lib/ids.ts";

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

interface Row {
  id: string;
  url: string;
  site_key: string;
  status: ReportStatus;
  created_at: Date;
  completed_at: Date | null;
  score: number | null;
  grade: Grade | null;
  metadata: ReportMetadata;
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
    const rows = await sql<Row[]>`
      select id, url, site_key, status, created_at, completed_at, score, grade, metadata
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
    const page = rows.slice(0, limit).map((row) => ({
      id: row.id,
      url: row.url,
      site: row.site_key,
      status: row.status,
      created_at: row.created_at.toISOString(),
      completed_at: row.completed_at ? row.completed_at.toISOString() : null,
      score: row.score,
      grade: row.grade,
      metadata: row.metadata,
    }));
    return { data: page, next_cursor: rows.length > limit ? (page.at(-1)?.id ?? null) : null };
  }

  /** The newest completed report of the same site (and environment) created before `report`. */
  async previous(accountId: string, report: Report): Promise<Report | undefined> {
    const { sql } = this;
    const environment = report.metadata.environment;
    const [row] = await sql<{ body: Report }[]>`
      select r.body from reports r, reports head
      where head.id = ${report.id} and head.account_id = ${accountId}
        and r.account_id = ${accountId} and r.site_key = head.site_key and r.status = 'completed'
        and r.delivered_at is not null
        and r.id <> head.id and (r.created_at, r.id) < (head.created_at, head.id)
        ${environment !== undefined ? sql`and r.environment = ${environment}` : sql`and r.environment is null`}
      order by r.created_at desc, r.id desc
      limit 1`;
    return row?.body;
  }
}
