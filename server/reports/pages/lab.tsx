/**
 * The report page's lab section (performance.lab): the Core Web Vitals with their levels, the
 * thumbnail, the LCP element, the long tasks and layout shifts with the component each belongs
 * to, and the bytes by component as bars. Every text from the site is escaped by Preact; the
 * thumbnail is a data: URL the report checked to be a JPEG (img-src allows data:).
 */
import { LAB_LEVEL_WORDS, labRows } from "../../../shared/lab.ts";
import type { Lab, LabComponent } from "../../../shared/report.ts";
import { Table } from "../../web/pages/common.tsx";

function componentText(component: LabComponent | null): string {
  if (!component) return "—";
  if (component.kind === "plugin" || component.kind === "theme") return `${component.kind} ${component.slug}`;
  if (component.kind === "core") return "WordPress core";
  if (component.kind === "site") return "the site";
  return component.origin;
}

const kB = (bytes: number) => `${Math.round(bytes / 100) / 10} kB`;

export function LabSection({ lab }: { lab: Lab }) {
  const setting = `${lab.device}, ${lab.throttling === "none" ? "no throttling" : `throttled (CPU ${lab.throttling_used.cpu_slowdown}×, ${lab.throttling_used.rtt_ms} ms RTT)`}, ${lab.completed_runs} of ${lab.runs} load${lab.runs === 1 ? "" : "s"}`;
  if (lab.status !== "complete" || !lab.metrics) {
    return (
      <section aria-labelledby="lab-heading">
        <h3 id="lab-heading">Lab: the page in a browser</h3>
        <p>
          The lab run {lab.status === "failed" ? "failed" : "was unavailable"}: {lab.reason ?? lab.status}. Its checks
          were skipped.
        </p>
      </section>
    );
  }
  const total = lab.components.reduce((sum, entry) => sum + entry.bytes, 0) || 1;
  return (
    <section aria-labelledby="lab-heading">
      <h3 id="lab-heading">Lab: the page in a browser</h3>
      <p class="hint">{setting}</p>
      <Table caption="Core Web Vitals (lab)" head={["Metric", "Value", "Level", "Spread"]}>
        {labRows(lab.metrics).map((row) => {
          const spread = lab.spread?.[row.key as "lcp_ms" | "cls" | "tbt_ms" | "fcp_ms"];
          return (
            <tr key={row.key}>
              <td>{row.label}</td>
              <td>{row.value}</td>
              <td class={row.level ? `level-${row.level}` : undefined}>
                {row.level ? LAB_LEVEL_WORDS[row.level] : ""}
              </td>
              <td>{spread && lab.completed_runs > 1 ? `${spread.min} – ${spread.max}` : ""}</td>
            </tr>
          );
        })}
      </Table>
      {lab.thumbnail ? (
        <figure>
          <img src={lab.thumbnail} alt="The page's first screen once the load settled (lab)" width={200} />
          <figcaption class="hint">
            {lab.lcp_element
              ? `Largest Contentful Paint: ${lab.lcp_element.kind} ${lab.lcp_element.selector ?? ""}${lab.lcp_element.url ? ` (${lab.lcp_element.url})` : ""}`
              : "No Largest Contentful Paint was measured."}
          </figcaption>
        </figure>
      ) : null}
      {lab.long_tasks.length > 0 ? (
        <Table caption="Long tasks (lab)" head={["Duration", "Adds to TBT", "Belongs to", "Script"]}>
          {lab.long_tasks.map((task, index) => (
            <tr key={index}>
              <td>{task.duration_ms} ms</td>
              <td>{task.blocking_ms} ms</td>
              <td>{componentText(task.component)}</td>
              <td class="mono small">{task.scripts[0]?.url ?? "—"}</td>
            </tr>
          ))}
        </Table>
      ) : null}
      {lab.layout_shifts.length > 0 ? (
        <Table caption="Layout shifts counted in CLS (lab)" head={["At", "Shift", "What moved"]}>
          {lab.layout_shifts.map((shift, index) => (
            <tr key={index}>
              <td>{shift.start_ms} ms</td>
              <td>{shift.value.toFixed(3)}</td>
              <td class="mono small">{shift.elements.join(", ") || "—"}</td>
            </tr>
          ))}
        </Table>
      ) : null}
      {lab.render_blocking.length > 0 ? (
        <Table caption="Files that held the first render (lab)" head={["File", "Belongs to", "Took"]}>
          {lab.render_blocking.map((file, index) => (
            <tr key={index}>
              <td class="mono small">{file.url}</td>
              <td>{componentText(file.component)}</td>
              <td>{file.duration_ms} ms</td>
            </tr>
          ))}
        </Table>
      ) : null}
      {lab.components.length > 0 ? (
        <Table caption="Bytes by component (lab)" head={["Component", "Requests", "Bytes", "Share"]}>
          {lab.components.map((entry, index) => (
            <tr key={index}>
              <td>{componentText(entry.component)}</td>
              <td>{entry.requests}</td>
              <td>{kB(entry.bytes)}</td>
              <td>
                <meter
                  min={0}
                  max={total}
                  value={entry.bytes}
                  aria-label={`${componentText(entry.component)}: share of bytes`}
                >
                  {Math.round((entry.bytes / total) * 100)} %
                </meter>
              </td>
            </tr>
          ))}
        </Table>
      ) : null}
      {lab.blocked_requests.count > 0 ? (
        <p class="hint">
          {lab.blocked_requests.count} request{lab.blocked_requests.count === 1 ? "" : "s"} of the page were refused by
          the target policy (never made).
        </p>
      ) : null}
    </section>
  );
}
