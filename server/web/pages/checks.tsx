/**
 * The public check catalogue (/docs/checks): every check id with what a pass and a failure
 * mean and how to fix it. SARIF rules link here (`helpUri` = /docs/checks#<id>), so each
 * check is a section whose id is the check id.
 */
import { CHECK_CATEGORIES } from "../../../shared/report.ts";
import { CHECKS, type CheckDefinition, type CheckId } from "../../analyzer/audit/catalogue.ts";
import { WORDPRESS_CHECKS, WORDPRESS_FILE_CHECKS } from "../../analyzer/audit/wordpress-only.ts";

const CATEGORY_NAMES: Record<string, string> = {
  performance: "Performance",
  seo: "SEO",
  security: "Security",
  components: "Components",
};

function scope(id: CheckId): string | null {
  if (WORDPRESS_CHECKS.has(id)) return "WordPress only: skipped on a site that is not WordPress.";
  if (WORDPRESS_FILE_CHECKS.has(id))
    return "WordPress files: skipped on a site that is not WordPress unless the file was found.";
  return null;
}

export function ChecksPage() {
  const entries = Object.entries(CHECKS as Record<string, CheckDefinition>);
  return (
    <div class="stack">
      <section>
        <h1>Check catalogue</h1>
        <p class="lead">
          Every finding in a report's <code>checks[]</code> has one of these {entries.length} ids. An id never changes
          meaning, so CI thresholds, diffs and code-scanning alerts that name it keep working.
        </p>
        <p>
          Statuses: <code>pass</code>, <code>fail</code>, <code>warn</code> (borderline), <code>skip</code> (not
          applicable or not measurable), <code>error</code> (the probe behind it failed; see the report's{" "}
          <code>errors[]</code>).
        </p>
        <nav aria-label="Categories">
          <ul>
            {CHECK_CATEGORIES.map((category) => (
              <li key={category}>
                <a href={`#category-${category}`}>{CATEGORY_NAMES[category] ?? category}</a>
              </li>
            ))}
          </ul>
        </nav>
      </section>
      {CHECK_CATEGORIES.map((category) => (
        <section key={category} id={`category-${category}`} class="stack">
          <h2>{CATEGORY_NAMES[category] ?? category}</h2>
          {entries
            .filter(([, definition]) => definition.category === category)
            .map(([id, definition]) => {
              const note = scope(id as CheckId);
              return (
                <article key={id} id={id} class="card check-entry">
                  <h3>
                    <code>{id}</code>
                  </h3>
                  <dl>
                    <dt>Severity</dt>
                    <dd>{definition.severity}</dd>
                    <dt>Passes when</dt>
                    <dd>{definition.title}</dd>
                    <dt>Fails when</dt>
                    <dd>{definition.failTitle}</dd>
                    <dt>How to fix</dt>
                    <dd>{definition.remediation}</dd>
                    {note ? (
                      <>
                        <dt>Scope</dt>
                        <dd>{note}</dd>
                      </>
                    ) : null}
                  </dl>
                </article>
              );
            })}
        </section>
      ))}
    </div>
  );
}
