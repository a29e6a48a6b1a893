/** All reports of the account: search by site, filter by grade, page back in time. */
import type { ReportListItem } from "../../../shared/api.ts";
import { Table } from "../../web/pages/common.tsx";
import { REPORT_HEAD, ReportRows } from "./dashboard.tsx";

export function ReportsPage({
  reports,
  search,
  grade,
  next,
}: {
  reports: ReportListItem[];
  search: string;
  grade: string;
  next: string | null;
}) {
  const nextQuery = new URLSearchParams();
  if (search) nextQuery.set("site", search);
  if (grade) nextQuery.set("grade", grade);
  if (next) nextQuery.set("before", next);
  return (
    <div class="stack">
      <h1>Reports</h1>
      <search>
        <form method="get" action="/reports" class="card">
          <div class="row">
            <div class="field">
              <label for="site">Site</label>
              <input id="site" name="site" type="search" value={search} placeholder="example.com" />
            </div>
            <div class="field">
              <label for="grade">Grade</label>
              <select id="grade" name="grade">
                <option value="">Any grade</option>
                {["A", "B", "C", "D", "E", "F"].map((value) => (
                  <option value={value} selected={grade === value} key={value}>
                    {value}
                  </option>
                ))}
              </select>
            </div>
            <div>
              <button type="submit">Filter</button>
            </div>
          </div>
        </form>
      </search>
      {reports.length === 0 ? (
        <p class="muted">No reports match.</p>
      ) : (
        <Table caption="Reports" head={REPORT_HEAD}>
          <ReportRows reports={reports} />
        </Table>
      )}
      {next ? (
        <p>
          <a href={`/reports?${nextQuery}`}>Older reports →</a>
        </p>
      ) : null}
    </div>
  );
}
