/**
 * Files that must never be public: config backups, .env, .git, database dumps, logs,
 * installers, backup folders, emergency scripts, readme.html. One check per kind, so a CI
 * gate can name exactly the ones it cares about.
 *
 * The security facts list a file only when its content proved it real (soft-404 guarded,
 * see extract/security.ts), so a listed file is a finding, not a guess. A kind whose probes
 * met a firewall's challenge, a persistent 429, a server error or a timeout is `skip`, not
 * `pass` (audit/obstacles.ts): an unanswered request proves nothing.
 */
import type { Check } from "../../../../shared/report.ts";
import type { ProbeAnswer, ProbeFacts } from "../../facts.ts";
import { probeValues } from "../../probe-keys.ts";
import { EXPOSED_FILES } from "../../probe-kinds.ts";
import { type CheckId, makeCheck } from "../catalogue.ts";
import { notCheckedCheck, obstaclesFor } from "../obstacles.ts";
import { unreachedReason } from "../placement.ts";
import type { Audit } from "../types.ts";

interface Exposure {
  kind: string;
  /** The install's base its probes go under, when a miss there only counts at the right place. */
  base?: "core" | "content";
  id: CheckId;
  /** What it is, for messages: "A wp-config.php backup". */
  what: string;
  /** Why it matters, one clause. */
  risk: string;
  /** The message of a pass. */
  clean: string;
}

const EXPOSURES: readonly Exposure[] = [
  {
    kind: "config_backup",
    id: "security.config_backup_exposed",
    what: "A backup of wp-config.php",
    risk: "it holds the database password and the secret keys",
    clean: "No wp-config.php backup (.bak, ~, .save, .old, .orig, .txt, .swp) is readable.",
  },
  {
    kind: "env_file",
    id: "security.env_file_exposed",
    what: "A .env file",
    risk: "such files hold passwords and API keys",
    clean: "No .env file is readable.",
  },
  {
    kind: "db_dump",
    id: "security.db_dump_exposed",
    what: "A database dump",
    risk: "it holds every user's e-mail address and password hash",
    clean: "No database dump was found at the usual addresses.",
  },
  {
    kind: "installer",
    base: "core",
    id: "security.installer_exposed",
    what: "The WordPress installer",
    risk: "whoever completes it can take over the site and run code on the server",
    clean: "wp-admin/install.php does not offer to install WordPress.",
  },
  {
    kind: "emergency",
    id: "security.emergency_script_exposed",
    what: "emergency.php",
    risk: "it lets anyone reset the administrator password",
    clean: "No emergency.php password-reset script is public.",
  },
  {
    kind: "git",
    id: "security.git_exposed",
    what: "The .git repository",
    risk: "the source and its history (often with credentials) can be downloaded",
    clean: "The .git repository is not readable.",
  },
  {
    kind: "debug_log",
    base: "content",
    id: "security.debug_log_exposed",
    what: "The debug log",
    risk: "it shows file paths, plugin errors and sometimes queries and personal data",
    clean: "No debug.log is readable in the content directory.",
  },
  {
    kind: "installer_log",
    id: "security.installer_log_exposed",
    what: "A migration installer log",
    risk: "it shows server paths and database details of the migration",
    clean: "No installer-log.txt is readable.",
  },
  {
    kind: "backup_dir",
    base: "content",
    id: "security.backup_dir_exposed",
    what: "The backup directory",
    risk: "anyone can list and download the backups in it",
    clean: "The backup-db directory of the content directory does not list files.",
  },
  {
    kind: "readme",
    base: "core",
    id: "security.readme_exposed",
    what: "readme.html",
    risk: "it confirms the site runs WordPress to scanners",
    clean: "readme.html is not public.",
  },
];

/** The answers to a kind's probes, each with its place under the kind's base. */
function answersOf({ answers }: ProbeFacts, kind: string): (readonly [ProbeAnswer | undefined, string])[] {
  if (kind === "readme") return [[answers.readme_html, "readme.html"]];
  const files = EXPOSED_FILES.filter((file) => file.kind === kind);
  return probeValues(answers, "exposed").flatMap(([path, answer]) => {
    const file = files.find((candidate) => path.endsWith(`/${candidate.path}`));
    return file ? [[answer, file.path] as const] : [];
  });
}

/** Probe keys (`exposed:<path>`) that were planned for a kind, and which of them got no answer. */
function unanswered({ answers }: ProbeFacts, kind: string): string[] {
  if (kind === "readme") return answers.readme_html ? [] : ["readme.html"];
  const suffixes = EXPOSED_FILES.filter((file) => file.kind === kind).map((file) => `/${file.path}`);
  const answered = probeValues(answers, "exposed").map(([path]) => path);
  return suffixes.filter((suffix) => !answered.some((path) => path.endsWith(suffix)));
}

export const auditExposedFiles: Audit = ({ security, probes, paths }) =>
  EXPOSURES.map(({ kind, base, id, what, risk, clean }): Check => {
    const found = security.exposed_files.filter((file) => file.kind === kind);
    if (found.length > 0) {
      return makeCheck(
        id,
        "fail",
        `${what} is publicly readable${found.length > 1 ? ` at ${found.length} addresses` : ""}: ${risk}.`,
        found.map((file) => `${file.url} (${file.status}): ${file.evidence}`),
      );
    }
    // A challenge, a persistent 429, a server error or a timeout is no answer (audit/obstacles.ts).
    const obstacles = obstaclesFor(id, probes);
    if (obstacles.length > 0) return notCheckedCheck(id, obstacles);
    const missing = unanswered(probes, kind);
    if (missing.length > 0) {
      return makeCheck(
        id,
        "error",
        `${missing.length} request(s) for this check got no answer (see errors), so it could not be completed.`,
        missing,
      );
    }
    // Not found where the file would not be is no answer (audit/placement.ts).
    const unreached = base ? unreachedReason(paths, base, answersOf(probes, kind)) : null;
    if (unreached) return makeCheck(id, "skip", `${what} was not found, but that proves nothing: ${unreached}.`);
    return makeCheck(id, "pass", clean);
  });
