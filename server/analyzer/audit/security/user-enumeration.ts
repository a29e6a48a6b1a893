/**
 * User enumeration: login names are half of what a brute-force attack needs. WordPress
 * gives them away through the REST API (/wp-json/wp/v2/users lists every author's slug,
 * which is the login name unless changed), through /?author=N, which redirects to
 * /author/<login>/, through its users sitemap, and names authors in oEmbed and feeds.
 *
 * `security.user_enumeration` is judged by what was found: it fails whenever a route gives
 * away a login name — a slug, which is the login unless changed: the REST API's users, author
 * archives, the users sitemap, oEmbed's author URL — and names the routes; closing the REST
 * route alone does not pass it while author archives still give the same names away. A
 * display name (a feed's dc:creator, oEmbed's author_name, a byline) is not a login: shown
 * alone, the check passes and says which display names are public. The route checks (REST,
 * author archives) say which of the two best-known routes is open.
 */
import type { Check, DisclosedUser } from "../../../../shared/report.ts";
import type { Facts } from "../../facts.ts";
import { siteUrl } from "../../untrusted-text.ts";
import { makeCheck } from "../catalogue.ts";
import { notCheckedCheck, obstaclesFor, unlessObstructed } from "../obstacles.ts";
import type { Audit } from "../types.ts";

/** The login names every brute-force list starts with. */
const OBVIOUS_LOGINS = new Set(["admin", "administrator"]);

function describe(user: DisclosedUser): string {
  const name = user.username ?? user.display_name ?? "?";
  const id = user.id === null ? "" : ` (id ${user.id})`;
  return `${name}${id} — seen in ${user.sources.join(", ")}`;
}

function restCheck({ security, probes }: Facts): Check {
  const id = "security.rest_user_enumeration";
  const listed = security.users.filter((user) => user.sources.includes("rest_api"));
  if (listed.length > 0) {
    return makeCheck(
      id,
      "fail",
      `The REST API lists ${listed.length} user account(s) with their login names to anyone.`,
      listed.map(describe),
    );
  }
  const obstacles = obstaclesFor(id, probes);
  if (obstacles.length > 0) return notCheckedCheck(id, obstacles);
  const answer = probes.answers.rest_users;
  if (answer) {
    return makeCheck(id, "pass", `The REST users endpoint does not list accounts (answer ${answer.status}).`, [
      `${siteUrl(answer.url)} → ${answer.status}`,
    ]);
  }
  if (probes.failed.has("rest_users") || !probes.answers.rest_root) {
    return makeCheck(id, "error", "The REST API could not be requested (see errors), so user listing was not checked.");
  }
  return makeCheck(id, "pass", "The REST API is not reachable, so it lists no users.");
}

function authorCheck({ security, probes }: Facts): Check {
  const id = "security.author_enumeration";
  const answer = probes.answers.author_1;
  if (security.user_enumeration.author_archives) {
    const user = security.users.find((entry) => entry.sources.includes("author_archive"));
    const target = answer?.location ? ` → ${siteUrl(answer.location)}` : "";
    return makeCheck(
      id,
      "fail",
      `/?author=1 reveals the login name${user?.username ? ` "${user.username}"` : ""}; counting up N reveals the others.`,
      [`${answer ? siteUrl(answer.url) : "/?author=1"} (${answer?.status ?? "?"})${target}`],
    );
  }
  const obstacles = obstaclesFor(id, probes);
  if (obstacles.length > 0) return notCheckedCheck(id, obstacles);
  if (!answer) return makeCheck(id, "error", "/?author=1 could not be requested (see errors).");
  return makeCheck(id, "pass", "/?author=1 does not reveal a login name.", [
    `${siteUrl(answer.url)} → ${answer.status}`,
  ]);
}

/** Each route's name as a person reads it, in the order they are listed, with the fact that says it gave a login away. */
const LOGIN_ROUTES: readonly [source: string, name: string, flag: keyof Facts["security"]["user_enumeration"]][] = [
  ["rest_api", "the REST API (/wp-json/wp/v2/users)", "rest_api"],
  ["author_archive", "author archives (/?author=N)", "author_archives"],
  ["sitemap", "the users sitemap (wp-sitemap-users-1.xml)", "sitemap"],
  ["oembed", "oEmbed", "oembed"],
];
/** Routes that name authors by display name only. */
const NAME_ROUTES: readonly [source: string, name: string][] = [
  ["oembed", "oEmbed"],
  ["feed", "feeds"],
];

const list = (names: string[]) =>
  `${names.slice(0, 10).join(", ")}${names.length > 10 ? ` and ${names.length - 10} more` : ""}`;

function enumerationCheck({ security, probes }: Facts): Check {
  const id = "security.user_enumeration";
  const { users, user_enumeration: routes } = security;
  // A route behind a challenge may list what the others do not: no pass then (audit/obstacles.ts).
  if (users.length === 0) return unlessObstructed(makeCheck(id, "pass", "No route lists user accounts."), probes);
  const open = LOGIN_ROUTES.filter(
    ([source, , flag]) => routes[flag] && users.some((user) => user.sources.includes(source) && user.username !== null),
  );
  const logins = users.filter((user) => user.username !== null);
  const known = new Set([...LOGIN_ROUTES, ...NAME_ROUTES].map(([source]) => source));
  const other = [...new Set(users.flatMap((user) => user.sources))].filter((source) => !known.has(source));
  // Display names: the routes that showed a name without a login (oEmbed without its author URL, feeds).
  const named = NAME_ROUTES.filter(
    ([source]) => !open.some(([login]) => login === source) && users.some((user) => user.sources.includes(source)),
  );
  const nameEvidence = named.map(([source, name]) => {
    const shown = users.filter((user) => user.sources.includes(source)).map((user) => user.display_name ?? "?");
    return `${name}: ${list(shown)} (display names)`;
  });
  const namesRoutes = named.map(([, name]) => name).join(" and ");
  // "Feeds show…", "oEmbed shows…", "oEmbed and feeds show…" (oEmbed keeps its lower-case o).
  const subject = namesRoutes.startsWith("feeds") ? `F${namesRoutes.slice(1)}` : namesRoutes;
  const namesNote =
    named.length > 0
      ? `${subject} ${namesRoutes === "oEmbed" ? "shows" : "show"} authors' display names, which are not logins.`
      : "";
  if (open.length === 0 && other.length === 0) {
    return unlessObstructed(
      makeCheck(id, "pass", `No route lists login names. ${namesNote}`.trim(), nameEvidence),
      probes,
    );
  }
  const evidence = open.map(([source, name]) => {
    const seen = users.filter((user) => user.sources.includes(source) && user.username !== null);
    return `${name}: ${list(seen.map((user) => user.username ?? "?"))}`;
  });
  return makeCheck(
    id,
    "fail",
    `Visitors can list ${logins.length} login name(s) through ${[...open.map(([, name]) => name), ...other].join(", ")}.${namesNote ? ` ${namesNote}` : ""}`,
    [...evidence, ...nameEvidence],
  );
}

function adminCheck({ security, probes }: Facts): Check {
  const id = "security.admin_username";
  const obvious = security.users.filter((user) => user.username && OBVIOUS_LOGINS.has(user.username.toLowerCase()));
  if (obvious.length > 0) {
    return makeCheck(
      id,
      "fail",
      `An account with the login name "${obvious[0]?.username}" is disclosed: the first name every brute-force bot tries.`,
      obvious.map(describe),
    );
  }
  const disclosed = security.users.filter((user) => user.username !== null).length;
  const pass = makeCheck(
    id,
    "pass",
    disclosed === 0
      ? "No login names are disclosed."
      : `None of the ${disclosed} disclosed login name(s) is "admin" or "administrator".`,
  );
  // A route behind a challenge may disclose "admin" (audit/obstacles.ts).
  return unlessObstructed(pass, probes);
}

export const auditUserEnumeration: Audit = (facts) => {
  if (!facts.wordpress.detected) {
    return (
      [
        "security.user_enumeration",
        "security.rest_user_enumeration",
        "security.author_enumeration",
        "security.admin_username",
      ] as const
    ).map((id) => makeCheck(id, "skip", "The site does not look like WordPress."));
  }
  return [enumerationCheck(facts), restCheck(facts), authorCheck(facts), adminCheck(facts)];
};
