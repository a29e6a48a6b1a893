/**
 * Is the PHP version the site discloses (X-Powered-By) past its end of life? An EOL branch
 * gets no security fixes, whatever else is kept up to date.
 *
 * Audits are deterministic, so "today" is not read from the clock: a branch counts as
 * end-of-life when its EOL date is on or before PHP_BRANCHES_UPDATED, the day this table
 * was last checked against https://www.php.net/supported-versions.php and
 * https://www.php.net/eol.php. Update both together.
 */
import semver from "semver";
import { parseVersion } from "../../intel/versions.ts";
import { makeCheck } from "../catalogue.ts";
import type { Audit } from "../types.ts";

export const PHP_BRANCHES_UPDATED = "2026-11-22";

/** Release branches and the end of their security support. Every branch before 5.6 ended earlier. */
export const PHP_BRANCHES: readonly { branch: string; eol: string }[] = [
  { branch: "5.6", eol: "2018-12-31" },
  { branch: "7.0", eol: "2019-01-10" },
  { branch: "7.1", eol: "2019-12-01" },
  { branch: "7.2", eol: "2020-11-30" },
  { branch: "7.3", eol: "2021-12-06" },
  { branch: "7.4", eol: "2022-11-28" },
  { branch: "8.0", eol: "2023-11-26" },
  { branch: "8.1", eol: "2025-12-31" },
  { branch: "8.2", eol: "2026-12-31" },
  { branch: "8.3", eol: "2027-12-31" },
  { branch: "8.4", eol: "2028-12-31" },
  { branch: "8.5", eol: "2029-12-31" },
];

const OLDEST = PHP_BRANCHES[0] as { branch: string; eol: string };

export const auditPhp: Audit = ({ hosting, security }) => {
  const id = "components.php_eol";
  const version = hosting.php_version;
  if (version === null) return [makeCheck(id, "skip", "The site does not disclose its PHP version.")];
  const parsed = parseVersion(version);
  if (!parsed) return [makeCheck(id, "skip", `"${version}" is not a PHP version.`)];
  const branch = `${parsed.major}.${parsed.minor}`;
  const evidence = [`x-powered-by: ${security.version_disclosure.x_powered_by ?? `PHP/${version}`}`];
  const entry = PHP_BRANCHES.find((candidate) => candidate.branch === branch);
  if (!entry) {
    if (semver.lt(`${branch}.0`, `${OLDEST.branch}.0`)) {
      return [
        makeCheck(
          id,
          "fail",
          `PHP ${version} belongs to a branch that stopped receiving security fixes before ${OLDEST.eol}.`,
          evidence,
        ),
      ];
    }
    return [
      makeCheck(
        id,
        "skip",
        `PHP ${branch} is not in the table of PHP branches (last updated ${PHP_BRANCHES_UPDATED}), so its support status is unknown.`,
        evidence,
      ),
    ];
  }
  // ISO dates compare correctly as strings.
  if (entry.eol <= PHP_BRANCHES_UPDATED) {
    return [
      makeCheck(id, "fail", `PHP ${version}: the ${branch} branch stopped receiving security fixes on ${entry.eol}.`, [
        ...evidence,
        `PHP ${branch} end of life: ${entry.eol}`,
      ]),
    ];
  }
  return [
    makeCheck(
      id,
      "pass",
      `PHP ${version}: the ${branch} branch receives security fixes until ${entry.eol} (table of ${PHP_BRANCHES_UPDATED}).`,
      [...evidence, `PHP ${branch} end of life: ${entry.eol}`],
    ),
  ];
};
