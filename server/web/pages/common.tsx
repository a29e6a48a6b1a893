/** Small pieces shared by the pages. */
import type { ComponentChildren } from "preact";

/** Why a form was refused, as an alert above it (`#form-error`, which a field may name in aria-describedby). */
export function FormError({ message }: { message?: string }) {
  if (!message) return null;
  return (
    <div class="alert error" role="alert" id="form-error">
      {message}
    </div>
  );
}

export function formatDate(value: string | Date | null | undefined): string {
  if (!value) return "—";
  const date = typeof value === "string" ? new Date(value) : value;
  return `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

export function GradeBadge({ grade, score }: { grade: string | null; score?: number | null }) {
  if (!grade) return <span class="muted">—</span>;
  return (
    <span class={`badge grade-${grade}`} title={score !== undefined && score !== null ? `Score ${score}` : undefined}>
      {grade}
      {score !== undefined && score !== null ? ` · ${score}` : ""}
    </span>
  );
}

/** A column heading: its text, and optionally a class (e.g. "hide-sm") or text for screen readers only. */
export type HeadCell = string | { label: string; class?: string; visuallyHidden?: boolean };

/**
 * A data table in a horizontally scrollable frame. `stack`: on phones each row becomes a small
 * card, each cell labelled by its column (cells need data-label — see `cellLabel`).
 */
export function Table({
  caption,
  head,
  children,
  stack = false,
}: {
  caption: string;
  head: HeadCell[];
  children: ComponentChildren;
  stack?: boolean;
}) {
  return (
    <div class={stack ? "table-wrap stack-sm" : "table-wrap"}>
      <table>
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {head.map((cell) => {
              const { label, class: className, visuallyHidden } = typeof cell === "string" ? { label: cell } : cell;
              return (
                <th scope="col" key={label} class={className}>
                  {visuallyHidden ? <span class="visually-hidden">{label}</span> : label}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** Reports used this period. A native <progress> (inline styles are blocked by our CSP). */
export function UsageMeter({ used, quota, inProgress }: { used: number; quota: number; inProgress: number }) {
  const value = Math.min(quota, used + inProgress);
  return (
    <progress
      class={value >= quota ? "usage full" : "usage"}
      max={Math.max(quota, 1)}
      value={value}
      aria-label="Reports used this month"
      aria-valuetext={`${used} of ${quota} reports used`}
    >
      {`${used} of ${quota}`}
    </progress>
  );
}
