/**
 * User enumeration: login names are half of what a brute-force attack needs. WordPress
 * gives them away through the REST API (/wp-json/wp/v2/users lists every author's slug,
 * which is the login name unless changed), through /?author=N, which redirects to
 * /author/<login>/, through its users sitemap, and names authors in oEmbed and feeds.
 *
 * `security.user_enumeration` is judged by what was found: it fails whenever the report
 * lists a user, by whichever route, and names the routes — closing the REST route alone
 * does not pass it while author archives still give the same names away. The route checks
 * (REST, author archives) say which of the two best-known routes is open.
 */
import type { Check, DisclosedUser } from "../../../../shared/report.ts";
import type { Facts } from "../../facts.ts";
import { siteUrl } from "../../untrusted-text.ts";
import { makeCheck } from "../catalogue.ts";
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
  if (!answer) return makeCheck(id, "error", "/?author=1 could not be requested (see errors).");
  return makeCheck(id, "pass", "/?author=1 does not reveal a login name.", [
    `${siteUrl(answer.url)} → ${answer.status}`,
  ]);
}

/** Each route's name as a person reads it, in the order they are listed. */
const ROUTES: readonly [source: string, name: string][] = [
  ["rest_api", "the REST API (/wp-json/wp/v2/users)"],
  ["author_archive", "author archives (/?author=N)"],
  ["sitemap", "the users sitemap (wp-sitemap-users-1.xml)"],
  ["oembed", "oEmbed"],
  ["feed", "feeds"],
];

function enumerationCheck({ security }: Facts): Check {
  const id = "security.user_enumeration";
  const { users } = security;
  if (users.length === 0) return makeCheck(id, "pass", "No route lists user accounts.");
  const open = ROUTES.filter(([source]) => users.some((user) => user.sources.includes(source)));
  const other = [...new Set(users.flatMap((user) => user.sources))].filter(
    (source) => !ROUTES.some(([known]) => known === source),
  );
  const routes = [...open.map(([, name]) => name), ...other];
  const logins = users.filter((user) => user.username !== null).length;
  const what =
    logins > 0
      ? `${users.length} user account(s), ${logins} with their login name,`
      : `${users.length} user account(s) by display name`;
  const evidence = open.map(([source, name]) => {
    const seen = users.filter((user) => user.sources.includes(source));
    const names = seen.map((user) => user.username ?? user.display_name ?? "?");
    return `${name}: ${names.slice(0, 10).join(", ")}${names.length > 10 ? ` and ${names.length - 10} more` : ""}`;
  });
  return makeCheck(id, "fail", `Visitors can list ${what} through ${routes.join(", ")}.`, evidence);
}

function adminCheck({ security }: Facts): Check {
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
  return makeCheck(
    id,
    "pass",
    disclosed === 0
      ? "No login names are disclosed."
      : `None of the ${disclosed} disclosed login name(s) is "admin" or "administrator".`,
  );
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
