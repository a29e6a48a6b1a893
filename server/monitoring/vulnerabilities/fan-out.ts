/**
 * vulnerability.found: an advisory an intel import added is matched against the components of
 * every site's latest report (site_components), by the rules reports use (intel/advisory-match.ts),
 * and each newly affected site is told once — no crawl, no report, no credit.
 *
 * Who is told (docs/monitoring.md#vulnerabilityfound): a monitored site (monitored-sites.ts)
 * always; any other site (reports from the API, the web or the Action only) when its account
 * subscribed to vulnerability.found — an enabled webhook listing it, or email alerts wanting it.
 * A site whose report already listed the advisory (by id or CVE) is not told: it is not news.
 *
 * Once per (site, component, advisory): vulnerability_notices records each pair told, in the
 * transaction that emits its event, so a retried job or a re-import never tells twice.
 */
import type { PgBoss } from "pg-boss";
import type { EventData } from "../../../shared/events.ts";
import type { Severity } from "../../../shared/report.ts";
import { oneLine } from "../../../shared/untrusted-text.ts";
import type { AddedAdvisory, AdvisoriesAddedBatch } from "../../intel/advisories-added.ts";
import { advisoryAffects } from "../../intel/advisory-match.ts";
import type { Queryable, Sql } from "../../platform/db/database.ts";
import { siteId } from "../../platform/ids.ts";
import type { Logger } from "../../platform/logger.ts";
import type { EventService } from "../events/event.service.ts";
import { type FanOutJob, type FanOutQueue, VULNERABILITY_FAN_OUT_QUEUE } from "./fan-out-queue.ts";
import { monitoredSite } from "./monitored-sites.ts";

/** Events per transaction: a few thousand sites commit in steps, and a retry redoes little. */
const EVENTS_PER_TRANSACTION = 200;

const EVENT_TYPE = "vulnerability.found";

interface Candidate {
  account_id: string;
  site_key: string;
  environment: string;
  url: string;
  report_id: string;
  monitor_id: string | null;
  component_type: "core" | "plugin" | "theme";
  slug: string;
  name: string | null;
  version: string | null;
  known_advisories: string[];
  monitored: boolean;
}

export interface FanOutResult {
  /** Sites whose components the advisories affect. */
  affected: number;
  /** Events emitted (affected sites that are told and were not told before). */
  emitted: number;
}

/** The component type site_components uses for an advisory's. */
const siteComponentType = (type: AddedAdvisory["component_type"]) => (type === "wordpress" ? "core" : type);

function eventData(site: Candidate, advisory: AddedAdvisory, fixedIn: string | null): EventData<typeof EVENT_TYPE> {
  const name = site.name === null ? null : oneLine(site.name, 200).trim() || null;
  return {
    site: {
      id: siteId(site.account_id, site.site_key, site.environment),
      url: site.url,
      environment: site.environment === "" ? null : site.environment,
    },
    report_id: site.report_id,
    monitor_id: site.monitor_id,
    component: { type: site.component_type, slug: site.slug, name, version: site.version },
    advisory: {
      id: advisory.id,
      // A third party's words: one line, no controls, like every text the service shows.
      title: oneLine(advisory.title, 500).trim() || advisory.id,
      cve: advisory.cve,
      severity: advisory.severity as Severity,
      cvss_score: advisory.cvss_score === null ? null : Math.round(advisory.cvss_score * 10) / 10,
      fixed_in: fixedIn,
      references: advisory.refs,
      source: advisory.source,
    },
  };
}

export class VulnerabilityFanOut {
  private workerId: string | undefined;

  constructor(
    private readonly deps: {
      sql: Sql;
      boss: PgBoss;
      queue: FanOutQueue;
      events: EventService;
      logger: Logger;
    },
  ) {}

  /** intel's "advisories added" listener (services.ts): queues the fan-out in the import's transaction. */
  readonly advisoriesAdded = async (tx: Queryable, batch: AdvisoriesAddedBatch): Promise<void> => {
    await this.deps.queue.enqueue(tx, batch);
  };

  /** Runs fan-out jobs in this process (the worker role). */
  async start(): Promise<void> {
    const { boss, queue } = this.deps;
    const id = await boss.work<FanOutJob>(
      VULNERABILITY_FAN_OUT_QUEUE,
      { localConcurrency: 1, batchSize: 1, pollingIntervalSeconds: 1, notifyPollingIntervalSeconds: 1 },
      async ([job]) => {
        if (!job) return;
        const result = await this.run(job.data);
        this.deps.logger.info("vulnerability fan-out", {
          source: job.data.source,
          advisories: job.data.advisories.length,
          ...result,
        });
      },
    );
    this.workerId = id;
    queue.wakeLocal = () => boss.notifyWorker(id);
  }

  async stop(): Promise<void> {
    this.deps.queue.wakeLocal = undefined;
    if (this.workerId) await this.deps.boss.offWork(VULNERABILITY_FAN_OUT_QUEUE, { id: this.workerId, wait: true });
    this.workerId = undefined;
  }

  /** One job: every advisory of it against every site. */
  async run(job: FanOutJob): Promise<FanOutResult> {
    const total: FanOutResult = { affected: 0, emitted: 0 };
    for (const advisory of job.advisories) {
      const result = await this.fanOut(advisory);
      total.affected += result.affected;
      total.emitted += result.emitted;
    }
    return total;
  }

  /** One advisory: the sites it newly affects, told in batches of EVENTS_PER_TRANSACTION. */
  async fanOut(advisory: AddedAdvisory): Promise<FanOutResult> {
    const { sql, events } = this.deps;
    const candidates = await sql<Candidate[]>`
      select sc.account_id, sc.site_key, sc.environment, sc.url, sc.report_id, sc.monitor_id,
        sc.component_type, sc.slug, sc.name, sc.version, sc.known_advisories, ${monitoredSite(sql)} as monitored
      from site_components sc
      where sc.component_type = ${siteComponentType(advisory.component_type)}
        and sc.slug = ${advisory.slug.toLowerCase()} and sc.version is not null
        and not exists (
          select 1 from vulnerability_notices n
          where n.account_id = sc.account_id and n.site_key = sc.site_key and n.environment = sc.environment
            and n.component_type = sc.component_type and n.slug = sc.slug and n.advisory_id = ${advisory.id})
      order by sc.account_id, sc.site_key, sc.environment`;
    const known = new Set([advisory.id, ...advisory.cve]);
    const affected = candidates.flatMap((site) => {
      if (site.known_advisories.some((id) => known.has(id))) return [];
      const match = advisoryAffects(advisory, site.version);
      return match ? [{ site, fixedIn: match.fixed_in }] : [];
    });
    const subscribed = await this.subscribedAccounts([
      ...new Set(affected.filter(({ site }) => !site.monitored).map(({ site }) => site.account_id)),
    ]);
    const told = affected.filter(({ site }) => site.monitored || subscribed.has(site.account_id));
    let emitted = 0;
    for (let i = 0; i < told.length; i += EVENTS_PER_TRANSACTION) {
      const batch = told.slice(i, i + EVENTS_PER_TRANSACTION);
      emitted += await sql.begin(async (tx) => {
        let count = 0;
        for (const { site, fixedIn } of batch) {
          // The notice first: a concurrent job that told this site already makes it a no-op.
          const [fresh] = await tx`
            insert into vulnerability_notices
              (account_id, site_key, environment, component_type, slug, advisory_id, source, event_id)
            values (${site.account_id}, ${site.site_key}, ${site.environment}, ${site.component_type}, ${site.slug},
                    ${advisory.id}, ${advisory.source}, '')
            on conflict do nothing
            returning 1`;
          if (!fresh) continue;
          const event = await events.emit(site.account_id, EVENT_TYPE, eventData(site, advisory, fixedIn), { tx });
          await tx`
            update vulnerability_notices set event_id = ${event.id}
            where account_id = ${site.account_id} and site_key = ${site.site_key}
              and environment = ${site.environment} and component_type = ${site.component_type}
              and slug = ${site.slug} and advisory_id = ${advisory.id}`;
          count++;
        }
        return count;
      });
      events.wake();
    }
    return { affected: affected.length, emitted };
  }

  /** Of `accountIds`, those subscribed to vulnerability.found: an enabled webhook, or email alerts. */
  private async subscribedAccounts(accountIds: string[]): Promise<Set<string>> {
    if (accountIds.length === 0) return new Set();
    const rows = await this.deps.sql<{ account_id: string }[]>`
      select account_id from webhooks
      where account_id = any(${accountIds}::text[]) and disabled_at is null and ${EVENT_TYPE} = any(events)
      union
      select account_id from alert_settings
      where account_id = any(${accountIds}::text[]) and cardinality(recipients) > 0 and ${EVENT_TYPE} = any(events)`;
    return new Set(rows.map((row) => row.account_id));
  }
}
