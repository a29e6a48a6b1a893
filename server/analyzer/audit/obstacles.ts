/**
 * Blocked is not pass. A check that passes on a miss ("no .git here", "xmlrpc.php does not
 * answer as XML-RPC", "no route lists users") proves nothing when one of its probes met a
 * firewall's challenge or block page, a 429 that persisted after its Retry-After, a server
 * error or a timeout instead of an answer (facts.probes.obstacles, extract/obstacles.ts): the
 * file may be behind the challenge, and a browser that solves it gets it. Such a check is
 * `skip`, with what met it as its message — "A Cloudflare firewall challenge answered
 * /.git/HEAD: not checked." — and the report lists it in `not_checked` (docs/report.md). A
 * finding stands whatever else met the other probes: a file that was read was read.
 *
 * MISS_PROBES names, for every check that passes on a miss, the probes it rests on; the audits
 * ask it, and `guardPasses` holds the line for any pass that slipped through.
 */
import type { Check, NotChecked } from "../../../shared/report.ts";
import type { Facts, Obstacle, ProbeFacts } from "../facts.ts";
import { type ProbeKey, probeValues } from "../probe-keys.ts";
import { EXPOSED_FILES, type ExposedKind } from "../probe-kinds.ts";
import { type CheckId, makeCheck } from "./catalogue.ts";

/** The end of the message of a check that could not run (and of its not_checked reason). */
const NOT_CHECKED = ": not checked.";

const keysOf = (probes: ProbeFacts, name: "exposed" | "plugin_readme", keep: (value: string) => boolean) =>
  probeValues(probes.obstacles, name)
    .filter(([value]) => keep(value))
    .map(([value]) => `${name}:${value}` as ProbeKey);

/** The exposed-file probes (`exposed:<path>`) of a kind that met an obstacle. */
export function exposedKeys(probes: ProbeFacts, kind: ExposedKind): ProbeKey[] {
  const suffixes = EXPOSED_FILES.filter((file) => file.kind === kind).map((file) => `/${file.path}`);
  return keysOf(probes, "exposed", (path) => suffixes.some((suffix) => path.endsWith(suffix)));
}

/**
 * The REST probes a users check rests on: the users route; the root too only when the route
 * itself got no clean answer (the route is asked beside the root, on a guess).
 */
const restProbes = (probes: ProbeFacts): ProbeKey[] =>
  probes.answers.rest_users && !probes.obstacles.rest_users ? ["rest_users"] : ["rest_root", "rest_users"];
const userProbes = (probes: ProbeFacts): ProbeKey[] => [
  ...restProbes(probes),
  "author_1",
  "users_sitemap",
  "oembed",
  "feed",
];
const exposed = (kind: ExposedKind) => (probes: ProbeFacts) => exposedKeys(probes, kind);

/** The probes each check that passes on a miss rests on. */
export const MISS_PROBES: Partial<Record<CheckId, (probes: ProbeFacts) => readonly ProbeKey[]>> = {
  "security.config_backup_exposed": exposed("config_backup"),
  "security.env_file_exposed": exposed("env_file"),
  "security.db_dump_exposed": exposed("db_dump"),
  "security.installer_exposed": exposed("installer"),
  "security.emergency_script_exposed": exposed("emergency"),
  "security.git_exposed": exposed("git"),
  "security.debug_log_exposed": exposed("debug_log"),
  "security.installer_log_exposed": exposed("installer_log"),
  "security.backup_dir_exposed": exposed("backup_dir"),
  "security.readme_exposed": () => ["readme_html"],
  "security.directory_listing": () => ["uploads", "plugins_listing", "themes_listing"],
  "security.xmlrpc_enabled": () => ["xmlrpc_methods", "xmlrpc_get"],
  "security.xmlrpc_multicall": () => ["xmlrpc_methods"],
  "security.xmlrpc_pingback": () => ["xmlrpc_methods"],
  "security.rest_user_enumeration": restProbes,
  "security.author_enumeration": () => ["author_1"],
  "security.user_enumeration": userProbes,
  "security.admin_username": userProbes,
  "security.wp_version_disclosed": () => ["feed"],
  "security.login_over_https": () => ["login"],
  "components.plugin_versions_exposed": (probes) => keysOf(probes, "plugin_readme", () => true),
  // "No robots.txt, so nothing is disallowed" is no answer when a challenge stood before it.
  "seo.robots_txt_blocks_all": () => ["robots"],
  // These pass only on what was seen; a request that got no answer makes them not checked.
  "seo.robots_txt": () => ["robots"],
  "security.http_to_https_redirect": () => ["http_redirect"],
};

/** What met the probes a check rests on (each once, in the order given). */
export function obstaclesFor(id: CheckId, probes: ProbeFacts): Obstacle[] {
  const keys = MISS_PROBES[id]?.(probes) ?? [];
  return keys.flatMap((key) => {
    const obstacle = probes.obstacles[key];
    return obstacle ? [obstacle] : [];
  });
}

const capitalised = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

/**
 * The check `id` as one that could not run: `skip`, its message what met its first probe
 * ("A Cloudflare firewall challenge answered /.git/HEAD: not checked."), every one in evidence.
 */
export function notCheckedCheck(id: CheckId, obstacles: readonly Obstacle[], evidence: readonly string[] = []): Check {
  const [first, ...others] = obstacles;
  if (!first) throw new Error(`${id}: a check is not checked because of an obstacle`);
  const more = others.length > 0 ? `, and ${others.length} more of its requests met the same or no answer` : "";
  return makeCheck(id, "skip", `${capitalised(first.reason)}${more}${NOT_CHECKED}`, [
    ...obstacles.map((obstacle) => obstacle.reason),
    ...evidence,
  ]);
}

/** The check, or the same check not checked when a probe it rests on met an obstacle. */
export function unlessObstructed(check: Check, probes: ProbeFacts): Check {
  const obstacles = obstaclesFor(check.id as CheckId, probes);
  return obstacles.length > 0 ? notCheckedCheck(check.id as CheckId, obstacles) : check;
}

/**
 * The last line: a check that passes on a miss never passes while one of its probes met an
 * obstacle, whatever its audit concluded (a pass is a statement about what was observed); and
 * one whose audit gave up (`error`) because of it says what met it, as not checked.
 */
export function guardPasses(checks: readonly Check[], { probes }: Pick<Facts, "probes">): Check[] {
  return checks.map((check) =>
    check.status === "pass" || check.status === "error" ? unlessObstructed(check, probes) : check,
  );
}

/** The checks that could not run because of what the site answered, with why (report.not_checked). */
export function notCheckedOf(checks: readonly Check[]): NotChecked[] {
  return checks
    .filter((check) => check.status === "skip" && check.message.endsWith(NOT_CHECKED))
    .map((check) => ({ check: check.id, reason: check.message.replace(/\.$/, "") }));
}
