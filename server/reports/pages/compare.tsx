/** Two reports of one site side by side: the diff engine's output, as the Action shows it. */
import type { Diff } from "../../../shared/diff-schema.ts";
import { metricChangeText } from "../../../shared/diff-text.ts";
import type { Report } from "../../../shared/report.ts";
import { formatDate, GradeBadge, Table } from "../../web/pages/common.tsx";

const FAIL_ON = ["critical", "high", "medium", "low", "info", "none"];

export function ComparePage({ base, head, diff, failOn }: { base: Report; head: Report; diff: Diff; failOn: string }) {
  return (
    <div class="stack">
      <p class="small">
        <a href={`/reports/${head.id}`}>← Back to the report</a>
      </p>
      <h1>
        Compare reports of <span class="mono">{head.final_url ?? head.url}</span>
      </h1>
      <form method="get" class="card row">
        <input type="hidden" name="base" value={base.id} />
        <div class="field">
          <label for="fail_on">Fail on regressions at</label>
          <select id="fail_on" name="fail_on">
            {FAIL_ON.map((value) => (
              <option value={value} selected={value === failOn} key={value}>
                {value === "none" ? "never" : `${value} or above`}
              </option>
            ))}
          </select>
        </div>
        <div>
          <button type="submit">Apply</button>
        </div>
      </form>
      <div class={`alert ${diff.verdict.result === "pass" ? "success" : "error"}`} role="status" id="verdict">
        <strong>{diff.verdict.result === "pass" ? "Pass" : "Fail"}</strong>
        {diff.verdict.reasons.length > 0 ? (
          <ul>
            {diff.verdict.reasons.map((reason, index) => (
              <li key={index}>{reason}</li>
            ))}
          </ul>
        ) : (
          " — nothing regressed past the threshold."
        )}
      </div>
      <Table caption="Score" head={[{ label: "Measure", visuallyHidden: true }, "Before", "After"]}>
        <tr>
          <td>Report</td>
          <td>
            <a href={`/reports/${base.id}`}>{formatDate(base.created_at)}</a>
          </td>
          <td>
            <a href={`/reports/${head.id}`}>{formatDate(head.created_at)}</a>
          </td>
        </tr>
        <tr>
          <td>Grade</td>
          <td>
            <GradeBadge grade={diff.grade.before} score={diff.score.before} />
          </td>
          <td>
            <GradeBadge grade={diff.grade.after} score={diff.score.after} />
          </td>
        </tr>
      </Table>
      <section aria-labelledby="regressions-heading">
        <h2 id="regressions-heading">Regressions ({diff.regressions.length})</h2>
        {diff.regressions.length === 0 ? (
          <p>No check got worse.</p>
        ) : (
          <Table caption="Regressions" head={["Severity", "Check", "Before → after", "Details"]}>
            {diff.regressions.map((change) => (
              <tr key={change.id}>
                <td>
                  <span class={`badge sev-${change.severity}`}>{change.severity}</span>
                </td>
                <td>
                  {change.title}
                  <div class="mono small muted">
                    {change.id}
                    {change.new_check ? " (new check)" : ""}
                  </div>
                </td>
                <td>
                  {change.before ?? "—"} → {change.after ?? "—"}
                </td>
                <td class="small">
                  {change.message}
                  <div>
                    <strong>Fix:</strong> {change.remediation}
                  </div>
                </td>
              </tr>
            ))}
          </Table>
        )}
      </section>
      {diff.improvements.length > 0 ? (
        <section aria-labelledby="improvements-heading">
          <h2 id="improvements-heading">Improvements ({diff.improvements.length})</h2>
          <ul>
            {diff.improvements.map((change) => (
              <li key={change.id}>
                {change.title} <span class="mono small muted">{change.id}</span>: {change.before ?? "—"} →{" "}
                {change.after ?? "—"}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {diff.components.length > 0 ? (
        <section aria-labelledby="components-changes-heading">
          <h2 id="components-changes-heading">Component changes</h2>
          <Table caption="Component changes" head={["Component", "Change", "Version"]}>
            {diff.components.map((change) => (
              <tr key={`${change.type}:${change.slug}`}>
                <td>
                  {change.type} {change.name ?? change.slug}
                </td>
                <td>{change.change}</td>
                <td>
                  {change.before ?? "—"} → {change.after ?? "—"}
                </td>
              </tr>
            ))}
          </Table>
        </section>
      ) : null}
      {diff.metrics.length > 0 ? (
        <section aria-labelledby="metrics-heading">
          <h2 id="metrics-heading">Metrics</h2>
          <Table caption="Metric changes" head={["Metric", "Before", "After", "Change"]}>
            {diff.metrics.map((metric) => {
              const text = metricChangeText(metric);
              return (
                <tr key={metric.metric}>
                  <td>{metric.label}</td>
                  <td>{text.before}</td>
                  <td>{text.after}</td>
                  <td class={metric.direction === "worse" ? "st-fail" : "st-pass"}>{text.change}</td>
                </tr>
              );
            })}
          </Table>
        </section>
      ) : null}
    </div>
  );
}
