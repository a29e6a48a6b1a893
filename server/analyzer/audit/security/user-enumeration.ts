/**
 * User enumeration: login names are half of what a brute-force attack needs. WordPress
 * gives them away through the REST API (/wp-json/wp/v2/users lists every author's slug,
 * which is the login name unless changed) and through /?author=N, which redirects to
 * /author/<login>/.
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

function restCheck({ security, artifacts }: Facts): Check {
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
  const answer = artifacts.probes.rest_users;
  if (answer) {
    return makeCheck(id, "pass", `The REST users endpoint does not list accounts (answer ${answer.status}).`, [
      `${siteUrl(answer.url)} → ${answer.status}`,
    ]);
  }
  const failed = artifacts.errors.some((error) => error.stage === "rest_users");
  if (failed || !artifacts.probes.rest_root) {
    return makeCheck(id, "error", "The REST API could not be requested (see errors), so user listing was not checked.");
  }
  return makeCheck(id, "pass", "The REST API is not reachable, so it lists no users.");
}

function authorCheck({ security, artifacts }: Facts): Check {
  const id = "security.author_enumeration";
  const answer = artifacts.probes.author_1;
  if (security.user_enumeration.author_archives) {
    const user = security.users.find((entry) => entry.sources.includes("author_archive"));
    const target = answer?.headers.location ? ` → ${siteUrl(answer.headers.location)}` : "";
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
    return (["security.rest_user_enumeration", "security.author_enumeration", "security.admin_username"] as const).map(
      (id) => makeCheck(id, "skip", "The site does not look like WordPress."),
    );
  }
  return [restCheck(facts), authorCheck(facts), adminCheck(facts)];
};
