/**
 * XML-RPC (xmlrpc.php). Enabled, it is a second login endpoint that security plugins often
 * forget; system.multicall lets one request try hundreds of passwords; pingback.ping makes
 * the site fetch any URL — used for DDoS reflection and to scan the host's internal network.
 */
import type { Check } from "../../../../shared/report.ts";
import { siteUrl } from "../../untrusted-text.ts";
import { type CheckId, makeCheck } from "../catalogue.ts";
import { notCheckedCheck, obstaclesFor } from "../obstacles.ts";
import { unreachedReason } from "../placement.ts";
import type { Audit } from "../types.ts";

const IDS = ["security.xmlrpc_enabled", "security.xmlrpc_multicall", "security.xmlrpc_pingback"] as const;

export const auditXmlRpc: Audit = ({ wordpress, security, probes, paths }) => {
  if (!wordpress.detected) {
    return IDS.map((id) => makeCheck(id, "skip", "The site does not look like WordPress."));
  }
  const { xmlrpc } = security;
  const get = probes.answers.xmlrpc_get;
  const list = probes.answers.xmlrpc_methods;
  if (!xmlrpc.enabled) {
    // xmlrpc.php behind a challenge, a persistent 429 or an error: whether it is on is unknown.
    const obstacles = obstaclesFor("security.xmlrpc_enabled", probes);
    if (obstacles.length > 0) return IDS.map((id) => notCheckedCheck(id, obstacles));
    if (!get && !list) {
      return IDS.map((id) => makeCheck(id, "error", "xmlrpc.php could not be requested (see errors)."));
    }
    const seen = [get, list]
      .filter((answer) => answer !== undefined)
      .map((answer) => `${siteUrl(answer.url)} → ${answer.status}`);
    // "Not XML-RPC" at a place where xmlrpc.php may not be is no answer (audit/placement.ts).
    const unreached = unreachedReason(paths, "core", [
      [list, "xmlrpc.php"],
      [get, "xmlrpc.php"],
    ]);
    if (unreached) {
      return IDS.map((id) => makeCheck(id, "skip", `Whether XML-RPC is on could not be told: ${unreached}.`, seen));
    }
    return [
      makeCheck("security.xmlrpc_enabled", "pass", "xmlrpc.php does not answer as XML-RPC.", seen),
      makeCheck("security.xmlrpc_multicall", "pass", "XML-RPC is off, so system.multicall is not available."),
      makeCheck("security.xmlrpc_pingback", "pass", "XML-RPC is off, so pingback.ping is not available."),
    ];
  }
  const evidence =
    xmlrpc.methods !== null
      ? [`system.listMethods: ${xmlrpc.methods} methods`]
      : ["GET xmlrpc.php: XML-RPC server accepts POST requests only."];
  const checks: Check[] = [
    makeCheck(
      "security.xmlrpc_enabled",
      "fail",
      "xmlrpc.php answers as XML-RPC: a second login endpoint that bypasses login-page protections.",
      evidence,
    ),
  ];
  const method = (id: CheckId, name: string, present: boolean | null, risk: string): Check => {
    if (present === null) {
      const obstacles = obstaclesFor(id, probes);
      if (obstacles.length > 0) return notCheckedCheck(id, obstacles);
      return list
        ? makeCheck(
            id,
            "skip",
            `XML-RPC did not list its methods (answer ${list.status}), so ${name} could not be checked.`,
          )
        : makeCheck(
            id,
            "error",
            `The system.listMethods request got no answer (see errors), so ${name} could not be checked.`,
          );
    }
    return present
      ? makeCheck(id, "fail", `XML-RPC offers ${name}: ${risk}`, [`method: ${name}`])
      : makeCheck(id, "pass", `XML-RPC does not offer ${name}.`);
  };
  checks.push(
    method(
      "security.xmlrpc_multicall",
      "system.multicall",
      xmlrpc.multicall,
      "one request can try hundreds of passwords, past per-request login limits.",
    ),
    method(
      "security.xmlrpc_pingback",
      "pingback.ping",
      xmlrpc.pingback,
      "anyone can make the site request arbitrary URLs (DDoS reflection, scans of internal addresses).",
    ),
  );
  return checks;
};
