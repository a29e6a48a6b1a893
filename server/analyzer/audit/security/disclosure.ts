/**
 * Software versions in response headers: Server (web server) and X-Powered-By (PHP).
 * A version tells scanners exactly which known bugs to try. (The WordPress version is
 * version-disclosure.ts.)
 */
import { makeCheck } from "../catalogue.ts";
import type { Audit } from "../types.ts";

export const auditHeaderDisclosure: Audit = ({ security, hosting, homepage }) => {
  const { server, x_powered_by: poweredBy } = security.version_disclosure;
  const serverCheck =
    server === null
      ? makeCheck(
          "security.server_version_disclosed",
          "pass",
          homepage.headers.server === undefined
            ? "No Server header is sent."
            : "The Server header names the software without a version.",
        )
      : makeCheck(
          "security.server_version_disclosed",
          "fail",
          `The Server header discloses the web server's version (${server}).`,
          [`server: ${server}`],
        );
  const phpCheck =
    hosting.php_version === null
      ? makeCheck("security.php_version_disclosed", "pass", "No response header discloses the PHP version.")
      : makeCheck(
          "security.php_version_disclosed",
          "fail",
          `X-Powered-By discloses PHP ${hosting.php_version}.`,
          poweredBy ? [`x-powered-by: ${poweredBy}`] : [],
        );
  return [serverCheck, phpCheck];
};
