/**
 * A changelog's newest release, in any of the shapes plugins write one: a readme's
 * `== Changelog ==` section, a changelog.txt, a CHANGELOG.md.
 *
 *   = 1.2.3 =                    = 1.2.3 - 2024-01-10 =        = Version 1.2.3 =
 *   ## [1.2.3] - 2024-01-10      ## [1.2.3](https://…) (2024-01-10)     ### 1.2.3
 *   **1.2.3**                    **Version 1.2.3 (2024-01-10)**
 *   v1.2.3 (2024-01-10)          1.2.3 / 2024-01-10            2024-01-10 - version 1.2.3
 *   * 1.2.3 - Fixed the thing    Version 1.2.3
 *
 * One heading shape is read per changelog — the strongest one present (`= … =`, then `#`,
 * then bold, then bare lines, then list items) — so that a list item starting with a number
 * ("* 6.4 compatibility") in a changelog of `= x =` headings is never an entry. A heading
 * must *start* with its version (after `[`, `v`, "Version", "Release" or a date): "## Notes
 * for WordPress 6.4" is no entry. Keep a Changelog's `[Unreleased]` and entries marked
 * unreleased, upcoming, TBD or in development are skipped: they are not the installed
 * release. The newest entry is the first when the entries go down, the last when they go
 * up (only if the whole file was read); a changelog in no clear order gives none.
 *
 * Work is bounded: at most MAX_LINES lines of at most MAX_LINE characters are looked at, with
 * anchored patterns that do not backtrack across a line.
 */
import { compareDottedVersions } from "../../../shared/versions.ts";
import { isFileVersion } from "./version-sanity.ts";

export interface ChangelogEntry {
  version: string;
  /** The heading as written (site text: cap it before it goes anywhere). */
  heading: string;
}

export interface Changelog {
  /** Released entries, in the order written. */
  entries: ChangelogEntry[];
  /** The newest released entry, or null when there is none or the order is unclear. */
  newest: ChangelogEntry | null;
  order: "newest_first" | "oldest_first" | "single" | "unclear" | "empty";
  /** Entries skipped because they are not released yet ([Unreleased], TBD…). */
  unreleased: number;
}

const MAX_LINES = 4_000;
const MAX_LINE = 300;
/** Entries compared to tell the order: the newest releases are what matters. */
const ORDER_WINDOW = 8;

type Shape = "equals" | "hash" | "bold" | "plain" | "bullet";
const SHAPES: readonly Shape[] = ["equals", "hash", "bold", "plain", "bullet"];

const UNRELEASED =
  /\b(?:unreleased|upcoming|tbd|tba|not\s+(?:yet\s+)?released|in\s+(?:development|progress)|work\s+in\s+progress|wip|coming\s+soon|next\s+(?:release|version)|planned|future\s+release)\b/i;

const MONTH = "(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\\.?";
/** A date at the start of a heading ("2024-01-10 - version 1.2.3"). */
const LEADING_DATE = new RegExp(
  // Day first with dots only with a four-digit year: "3.2.10" is a release, not 3 Feb 2010.
  `^(?:\\d{4}[-./]\\d{1,2}[-./]\\d{1,2}|\\d{1,2}[-/]\\d{1,2}[-/]\\d{2,4}|\\d{1,2}\\.\\d{1,2}\\.\\d{4}|${MONTH}\\s+\\d{1,2}(?:st|nd|rd|th)?,?\\s+\\d{4}|\\d{1,2}(?:st|nd|rd|th)?\\s+${MONTH},?\\s+\\d{4})`,
  "i",
);
/** Words that may stand before the version in a heading. */
const LEAD_WORDS = /^(?:version|ver\.?|release[sd]?|rel\.?)\s*[:#.]?\s*/i;
/** The version at the start of what is left, then the end or a separator (not "1.2 million"). */
const VERSION_AT_START =
  /^v?(\d{1,4}(?:\.\d{1,5}){1,3}(?:-?(?:alpha|beta|rc|a|b)\.?\d*)?)(?=$|[\s,;:()|/–—-]|\.(?!\d))/i;

/** The version a heading names, if it starts with one; `unreleased` when it says it is not out yet. */
export function headingVersion(heading: string): { version: string | null; unreleased: boolean } {
  let text = heading
    .replace(/\[([^\]]{0,80})\]\([^)]{0,500}\)/g, "$1") // [1.2.3](https://…/compare/…)
    .replace(/[[\]]/g, " ")
    .trim();
  const unreleased = UNRELEASED.test(text);
  const date = LEADING_DATE.exec(text);
  if (date) text = text.slice(date[0].length).replace(/^[\s\-–—:|/,(]+/, "");
  text = text.replace(LEAD_WORDS, "");
  const match = VERSION_AT_START.exec(text);
  const version = match?.[1] && isFileVersion(match[1]) ? match[1] : null;
  return { version, unreleased };
}

/**
 * The heading text of a line in a shape, or null when the line is not of that shape. The
 * line comes trimmed; markers are taken off with string operations, not with patterns whose
 * parts overlap (`\s*(.+?)\s*=+\s*$` backtracks quadratically on a line of spaces).
 */
function headingOf(line: string, shape: Shape): string | null {
  switch (shape) {
    case "equals": {
      if (!line.startsWith("=") || !line.endsWith("=")) return null;
      const inner = line.replace(/^=+/, "").replace(/=+$/, "").trim();
      return inner.length > 0 && !inner.includes("=") ? inner : null;
    }
    case "hash": {
      const match = /^#{1,6}[ \t]/.exec(line);
      return match ? line.slice(match[0].length).replace(/#+$/, "").trim() || null : null;
    }
    case "bold": {
      if (!line.startsWith("**")) return null;
      const end = line.indexOf("**", 2);
      // "**1.2.3** - 2024-01-10" is a heading; "**Note:** a long sentence" is not.
      if (end < 3 || line.length - end - 2 > 60) return null;
      return `${line.slice(2, end)} ${line.slice(end + 2)}`.trim();
    }
    case "plain":
      // A bare line that is only a heading: short, the version (or a date) first.
      return line.length <= 80 && /^(?:\[?v?\d|version\s|release\s)/i.test(line) ? line : null;
    case "bullet": {
      if (!/^[*\-+•][ \t]/.test(line)) return null;
      const item = line.slice(2).trim();
      // "* 1.2.3 - Fixed…" or "* 1.2.3:": the version, then a separator or the end.
      return /^v?\d+(?:\.\d+)+[ \t]*(?:$|[-–—:(])/.test(item) ? item : null;
    }
  }
}

/**
 * Parses a changelog. `complete` says the whole file was read: only then can an
 * oldest-first changelog give its newest (last) entry.
 */
export function parseChangelog(text: string, complete: boolean): Changelog {
  const lines = text.split(/\r?\n/, MAX_LINES).map((line) => line.slice(0, MAX_LINE).trim());
  for (const shape of SHAPES) {
    const entries: ChangelogEntry[] = [];
    let unreleased = 0;
    let headings = 0;
    for (const line of lines) {
      const heading = headingOf(line, shape);
      if (heading === null) continue;
      const found = headingVersion(heading);
      if (found.unreleased) {
        unreleased += 1;
        continue;
      }
      if (!found.version) continue;
      headings += 1;
      entries.push({ version: found.version, heading: heading.trim() });
    }
    // "plain" and "bullet" lines are weak shapes: one stray line of prose is not a changelog.
    if (headings === 0 || ((shape === "plain" || shape === "bullet") && headings < 2)) continue;
    return { entries, unreleased, ...newestOf(entries, complete) };
  }
  return { entries: [], unreleased: 0, newest: null, order: "empty" };
}

function newestOf(entries: readonly ChangelogEntry[], complete: boolean): Pick<Changelog, "newest" | "order"> {
  const [first] = entries;
  if (!first) return { newest: null, order: "empty" };
  if (entries.length === 1) return { newest: first, order: "single" };
  const window = entries.slice(0, ORDER_WINDOW);
  let down = 0;
  let up = 0;
  for (let i = 1; i < window.length; i++) {
    const step = compareDottedVersions(
      (window[i - 1] as ChangelogEntry).version,
      (window[i] as ChangelogEntry).version,
    );
    if (step > 0) down += 1;
    if (step < 0) up += 1;
  }
  const isMax = (candidate: ChangelogEntry, among: readonly ChangelogEntry[]) =>
    among.every((entry) => compareDottedVersions(candidate.version, entry.version) >= 0);
  if (down > 0 && up === 0) return { newest: first, order: "newest_first" };
  if (up > 0 && down === 0) {
    const last = entries.at(-1) as ChangelogEntry;
    return complete && isMax(last, entries)
      ? { newest: last, order: "oldest_first" }
      : { newest: null, order: "oldest_first" };
  }
  // A slip or two (a hotfix of an older branch listed after the newest release) is fine as
  // long as the first entry is the highest of the window and most steps go down.
  if (down >= 3 * up && isMax(first, window)) return { newest: first, order: "newest_first" };
  return { newest: null, order: "unclear" };
}
