/**
 * A report as the listings show it — GET /api/reports (report-history.service.ts) and a
 * portfolio site's reports (portfolio/) —: the columns they read, the row, the item it becomes,
 * and the gate verdict a report carries (gateOf).
 */
import type { ReportListItem } from "../../shared/api.ts";
import type { GateVerdict } from "../../shared/diff-schema.ts";
import type { Grade, ReportMetadata, ReportStatus } from "../../shared/report.ts";
import type { Queryable } from "../platform/db/database.ts";

/** The columns of a report's recorded gate verdict (recordGate). */
export interface GateRow {
  gate_result: "pass" | "fail" | null;
  gate_base_id: string | null;
  gate_rule: GateVerdict["rule"] | null;
  gate_judged_at: Date | null;
}

export interface ReportListRow extends GateRow {
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

/** The columns of a ReportListRow: `select ${reportListColumns(sql)} from reports …`. */
export const reportListColumns = (sql: Queryable) => sql`
  id, url, site_key, status, created_at, completed_at, score, grade, metadata,
  gate_result, gate_base_id, gate_rule, gate_judged_at`;

/** The report's gate verdict; null when no gate judged it. */
export function gateOf(row: GateRow): GateVerdict | null {
  if (!row.gate_result || !row.gate_rule || !row.gate_judged_at) return null;
  return {
    result: row.gate_result,
    base_id: row.gate_base_id,
    rule: row.gate_rule,
    judged_at: row.gate_judged_at.toISOString(),
  };
}

export function reportListItem(row: ReportListRow): ReportListItem {
  return {
    id: row.id,
    url: row.url,
    site: row.site_key,
    status: row.status,
    created_at: row.created_at.toISOString(),
    completed_at: row.completed_at ? row.completed_at.toISOString() : null,
    score: row.score,
    grade: row.grade,
    metadata: row.metadata,
    gate: gateOf(row),
  };
}
