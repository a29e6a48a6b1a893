/** The login page: passwords typed into a page served over plain HTTP travel in clear text. */
import { tlsVerificationNote } from "../../../../shared/site-tls.ts";
import { siteUrl } from "../../untrusted-text.ts";
import { makeCheck } from "../catalogue.ts";
import { notCheckedCheck, obstaclesFor } from "../obstacles.ts";
import { unreachedReason } from "../placement.ts";
import type { Audit } from "../types.ts";

export const auditLogin: Audit = ({ wordpress, security, probes, paths }) => {
  const id = "security.login_over_https";
  if (!wordpress.detected) return [makeCheck(id, "skip", "The site does not look like WordPress.")];
  const { login } = security;
  const answer = probes.answers.login;
  // A challenge or an error instead of wp-login.php: the form's transport is unknown (audit/obstacles.ts).
  const obstacles = obstaclesFor(id, probes);
  if (!login.reachable && obstacles.length > 0) return [notCheckedCheck(id, obstacles)];
  if (!answer) return [makeCheck(id, "error", "wp-login.php could not be requested (see errors).")];
  if (!login.reachable || login.url === null) {
    const unreached = unreachedReason(paths, "core", [[answer, "wp-login.php"]]);
    const seen = `${siteUrl(answer.asked)} → ${answer.status}${answer.url !== answer.asked ? ` (${siteUrl(answer.url)})` : ""}`;
    return [
      makeCheck(
        id,
        "skip",
        unreached
          ? `No login form was found, so its transport could not be checked: ${unreached}.`
          : `No login form was found at ${new URL(answer.asked).pathname} (it may be moved, renamed or protected), so its transport could not be checked.`,
        [seen],
      ),
    ];
  }
  if (login.over_https && security.tls_verification) {
    const note = tlsVerificationNote(security.tls_verification);
    return [makeCheck(id, "skip", `The login form is served over HTTPS, but ${note}: not checked.`, [login.url])];
  }
  if (login.over_https) return [makeCheck(id, "pass", "The login form is served over HTTPS.", [login.url])];
  return [
    makeCheck(
      id,
      "fail",
      "The login form is served over plain HTTP: user names, passwords and session cookies can be read on the network.",
      [login.url],
    ),
  ];
};
