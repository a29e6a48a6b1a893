/**
 * The gate over one or several sites, shared by the Action (run.ts) and the CLI (cli.ts), so
 * that both reach the same outcome on the same reports and write the same summary: each site
 * through the check pipeline (check.ts), one after another; one outcome for the step — `error`
 * when a site could not be checked (an API error, or a report that could not see the site),
 * else `fail` when one failed, else `pass` —, its failure message, and its Markdown summary.
 */
import { ApiError, explain } from "../../shared/client.ts";
import type { Report } from "../../shared/report.ts";
import {
  type CheckClient,
  type CheckEvents,
  type CheckRequest,
  type CheckResult,
  check,
  type Outcome,
} from "./check.ts";
import { reportUrl } from "./links.ts";
import { md, renderMarkdown, renderOverview } from "./markdown.ts";

/** One site of the step: its report once made (even when the comparison then failed), its result, or its error. */
export interface Site {
  url: string;
  report?: Report;
  result?: CheckResult;
  /** Why the site could not be checked (an API error), in plain words. */
  error?: string;
}

export const errorText = (error: unknown) =>
  error instanceof ApiError ? explain(error) : `wpreport: ${(error as Error).message}`;

export interface GateEvents extends Omit<CheckEvents, "reported"> {
  reported(site: Site, report: Report, replayed: boolean): void;
  /** The site's check finished (result set) or failed (error set). */
  done(site: Site): void;
}

/** Checks each URL in turn (the log stays in order, and the service's per-site limits are kind to it). */
export async function checkSites(
  client: CheckClient,
  request: Omit<CheckRequest, "url">,
  urls: string[],
  events: GateEvents,
): Promise<Site[]> {
  const sites: Site[] = [];
  for (const url of urls) {
    const site: Site = { url };
    sites.push(site);
    try {
      site.result = await check(
        client,
        { ...request, url },
        {
          log: events.log,
          warn: events.warn,
          reported: (made, replayed) => {
            site.report = made;
            events.reported(site, made, replayed);
          },
        },
      );
    } catch (error) {
      site.error = errorText(error);
    }
    events.done(site);
  }
  return sites;
}

/** What the Action (run.ts) and the CLI (cli.ts) read off the gate once every site is checked. */
export interface Gate {
  sites: Site[];
  /** The step's outcome (gateOutcome). */
  outcome: Outcome;
  /** Every report made, a site's whose comparison then failed too: the SARIF file's. */
  reports: Report[];
  /** The step's failure message (failureMessage), null when every site passed. */
  failure: string | null;
  /** The Markdown summary (summaryMarkdown), `limit` rows a table. */
  summary(limit?: number): string;
}

/** The gate of both front ends: each of `request.urls` checked in turn (checkSites), then its outcome, reports, failure and summary. */
export async function runGate(
  client: CheckClient,
  request: Omit<CheckRequest, "url"> & { urls: string[] },
  events: GateEvents,
): Promise<Gate> {
  const sites = await checkSites(client, request, request.urls, events);
  const { apiUrl } = request;
  const { failOn } = request.diffOptions;
  return {
    sites,
    outcome: gateOutcome(sites),
    reports: sites.flatMap((site) => (site.report ? [site.report] : [])),
    failure: failureMessage(sites),
    summary: (limit) => summaryMarkdown(sites, { apiUrl, failOn, ...(limit ? { limit } : {}) }),
  };
}

/** A site's `result` and, when it could not be checked, its `error`: the fields the CLI's JSON and the Action's `reports` output give each site. */
export function siteVerdict(site: Site): { result: Outcome; error?: string } {
  const problem = siteProblem(site);
  return { result: siteOutcome(site), ...(problem !== undefined ? { error: problem } : {}) };
}

/** One site's outcome: error when it could not be checked or its report could not see it. */
export function siteOutcome(site: Site): Outcome {
  return site.error !== undefined || !site.result ? "error" : site.result.outcome;
}

/** The step's outcome: error when a site could not be checked, else fail when one failed, else pass. */
export function gateOutcome(sites: Site[]): Outcome {
  const outcomes = sites.map(siteOutcome);
  return outcomes.includes("error") ? "error" : outcomes.includes("fail") ? "fail" : "pass";
}

/** Why a site could not be checked: the API's error, or the report's own statement; undefined when it was. */
export function siteProblem(site: Site): string | undefined {
  if (site.error !== undefined) return site.error;
  const unseen = site.result?.unseen;
  return unseen ? `the report could not see the site: ${unseen.message}` : undefined;
}

/** The step's failure message (the last thing a failing step says, an error annotation), or null when every site passed. */
export function failureMessage(sites: Site[]): string | null {
  const several = sites.length > 1;
  const lines = sites.flatMap((site) => {
    const named = several ? `${site.url}: ` : "";
    const problem = siteProblem(site);
    if (problem !== undefined) return [several ? `${named}could not check: ${problem}` : problem];
    const verdict = site.result?.diff.verdict;
    return verdict?.result === "fail" ? [`${named}${verdict.reasons.join("; ")}`] : [];
  });
  if (lines.length === 0) return null;
  if (!several) {
    const [site] = sites;
    if (site?.error !== undefined) return site.error;
    if (site?.result?.unseen) {
      const { report } = site.result;
      return `wpreport: could not check ${report.final_url ?? report.url}: ${site.result.unseen.message}`;
    }
    return `wpreport: ${lines[0]}`;
  }
  return `wpreport: ${lines.length} of ${sites.length} sites failed — ${lines.join(" · ")}`;
}

/**
 * The Markdown summary — the Action's job summary and PR comment (`limit` rows a table there),
 * the CLI's `--summary-file`: with several sites an overview first, then each checked site's
 * section; a site that could not be checked at all says why.
 */
export function summaryMarkdown(sites: Site[], options: { apiUrl: string; failOn: string; limit?: number }): string {
  const several = sites.length > 1;
  const overview = several
    ? renderOverview(
        sites.map((site) => ({
          url: site.url,
          report: site.report,
          diff: site.result?.diff,
          reportUrl: site.report ? reportUrl(options.apiUrl, site.report.id) : undefined,
          error: site.error,
        })),
      )
    : "";
  const sections = sites.map((site) =>
    site.result
      ? renderMarkdown(
          {
            report: site.result.report,
            diff: site.result.diff,
            reportUrl: site.result.links.report,
            failOn: options.failOn,
          },
          options.limit ? { limit: options.limit } : {},
        )
      : several
        ? ""
        : `### wpreport: ❗ Could not check — ${md(site.url, 300)}\n\n${md(site.error ?? "", 1_000)}\n`,
  );
  return [overview, ...sections].filter((part) => part !== "").join("\n");
}
