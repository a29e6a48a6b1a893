/**
 * Text from an analyzed site is untrusted wherever it goes (docs/report.md). This is the one
 * definition of the characters it must not carry into a report, a log, a terminal, a job
 * summary or a SARIF file: C0 and C1 control characters (escape sequences, carriage returns),
 * the Unicode line and paragraph separators, and the bidirectional overrides and isolates that
 * can make text read differently from what it is ("Trojan Source").
 *
 * Escaping for a particular output (HTML, markdown, workflow commands) is the renderer's job;
 * these only remove what no output should show.
 */
// Three spellings of one set (C0, DEL and C1 controls, U+2028/2029, bidi U+202A–202E and
// U+2066–2069), differing only in the white space they leave for the caller to handle.
const ANY_CONTROL = /[\u0000-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069]/g;
/** All but tab and line feed: for multi-line output. */
const CONTROL_BUT_LINES = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069]/g;
/** All but tab, line feed and carriage return, which folding turns into spaces. */
const CONTROL_BUT_SPACES =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069]/g;

/** One line: every control character becomes a space; at most `max` characters. */
export function oneLine(text: string, max = Number.POSITIVE_INFINITY): string {
  const line = text.replace(ANY_CONTROL, " ");
  return line.length > max ? line.slice(0, max) : line;
}

/** Several lines: control characters removed, tabs and line feeds kept. */
export function withoutControls(text: string): string {
  return text.replace(CONTROL_BUT_LINES, "");
}

/** For text stored in a report: controls removed, white space folded, at most `max` characters (… when cut). */
export function foldedText(text: string, max: number): string {
  const cleaned = text.replace(CONTROL_BUT_SPACES, "").replace(/\s+/g, " ").trim();
  return cleaned.length > max ? `${cleaned.slice(0, max - 1)}…` : cleaned;
}
