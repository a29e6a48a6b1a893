/**
 * Which URLs a webhook may be sent to: the analyses' target policy, checked when the webhook
 * is created or its URL changed — so a hostile URL is refused with a clear problem at once —
 * and again on every delivery, where it is the connection's own check (delivery.worker.ts:
 * SafeClient through the DNS-pinned agent; DNS answers can change in between).
 *
 * At creation a host name is resolved with the resolver deliveries use (DNS_SERVERS, or the
 * system's): a name with any forbidden address is refused, a name that does not exist too; a
 * resolver that does not answer right now is no reason to refuse (the delivery checks again).
 */
import dns from "node:dns";
import ipaddr from "ipaddr.js";
import { resolverLookup } from "../../analyzer/fetch/dns-servers.ts";
import { policyLookup } from "../../analyzer/fetch/safe-agent.ts";
import { portOf, TargetBlockedError, type TargetPolicy } from "../../analyzer/fetch/target-policy.ts";
import { validateTargetUrl } from "../../analyzer/target-url.ts";
import { ApiProblem } from "../../platform/http/problem.ts";

export type Resolve = typeof dns.lookup;

/** The resolver deliveries use: DNS_SERVERS when set, else the system's. */
export function webhookResolver(dnsServers: readonly string[]): Resolve {
  return dnsServers.length > 0 ? (resolverLookup(dnsServers) as unknown as Resolve) : dns.lookup;
}

/** What a webhook's URL must be, in words for the problems below. */
const WHAT = "a webhook must be sent to a public http or https address";

/** The normalised URL, or an ApiProblem (invalid_url, url_not_allowed) saying why not. */
export async function checkWebhookUrl(input: string, policy: TargetPolicy, resolve: Resolve): Promise<string> {
  const verdict = validateTargetUrl(input, policy);
  if (!verdict.ok) {
    // The analyzer's sentences speak of analyzing; say it of webhooks.
    const detail = verdict.detail
      .replace(/(, which)? cannot be analyzed/, "$1 cannot receive webhooks")
      .replace("can be analyzed", "can receive webhooks")
      .replace("the analyzing server itself", "this service itself");
    throw new ApiProblem(verdict.code, detail);
  }
  const url = verdict.url;
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  if (!ipaddr.isValid(host)) {
    const outcome = await new Promise<"ok" | "unknown" | TargetBlockedError>((done) => {
      policyLookup(policy, resolve, portOf(url))(host, { all: true }, (error) => {
        if (!error) return done("ok");
        if (error instanceof TargetBlockedError) return done(error);
        const code = (error as NodeJS.ErrnoException).code;
        done(code === "ENOTFOUND" || code === "ENODATA" || code === "EAI_NONAME" ? "unknown" : "ok");
      });
    });
    if (outcome === "unknown")
      throw new ApiProblem("invalid_url", `The host name ${host} does not resolve: ${WHAT} that exists.`);
    if (outcome instanceof TargetBlockedError)
      throw new ApiProblem("url_not_allowed", `The url's host ${host} ${outcome.reason}: ${WHAT}.`);
  }
  return url.toString();
}
