/** The login page: passwords typed into a page served over plain HTTP travel in clear text. */
import { makeCheck } from "../catalogue.ts";
import type { Audit } from "../types.ts";

export const auditLogin: Audit = ({ wordpress, security, probes }) => {
  const id = "security.login_over_https";
  if (!wordpress.detected) return [makeCheck(id, "skip", "The site does not look like WordPress.")];
  const { login } = security;
  if (!probes.answers.login) return [makeCheck(id, "error", "wp-login.php could not be requested (see errors).")];
  if (!login.reachable || login.url === null) {
    return [
      makeCheck(
        id,
        "skip",
        "No login form was found at wp-login.php (it may be renamed or protected), so its transport could not be checked.",
      ),
    ];
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
