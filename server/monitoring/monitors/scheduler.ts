/**
 * The monitors' scheduler: a short poll in each worker-role process (docs/monitoring.md,
 * "Monitors", says why a poll). A tick claims the due monitors — `for update skip locked`, so
 * processes never wait on each other's rows — and in the same transaction records each run
 * (monitor_runs, unique per monitor and slot) and advances `next_run_at` to the next slot plus
 * the monitor's jitter. Two processes ticking at once thus make exactly one run per slot.
 *
 * After the claim commits, each run asks for its report as any client would
 * (ReportService.generate, async, with the account's plan and quota and the monitor's id); a
 * refusal — quota exhausted, the account's queue full, the service overloaded, the URL now
 * refused — marks the run skipped and emits `monitor.skipped`, in one transaction. A process
 * that dies between the claim and the report loses that one run (it stays `claimed`): a slot
 * is never run twice.
 */
import type { PlanId } from "../../billing/plans.ts";
import type { Sql } from "../../platform/db/database.ts";
import { ApiProblem } from "../../platform/http/problem.ts";
import type { Logger } from "../../platform/logger.ts";
import type { ReportService } from "../../reports/reports.service.ts";
import type { EventService } from "../events/event.service.ts";
import { eventMonitor, type MonitorRow, runInput } from "./monitors.service.ts";
import { nextRun } from "./schedule.ts";

/** How often a worker process looks for due monitors; a run starts at most this late. */
export const TICK_MS = 5_000;
/** Monitors claimed per transaction: a tick claims batches until none is due. */
const BATCH = 50;

type DueRow = Pick<
  MonitorRow,
  "id" | "account_id" | "url" | "environment" | "schedule" | "mode" | "tls" | "tls_ca" | "lab" | "next_slot"
> & {
  plan_id: PlanId;
  monthly_quota: number;
};

export interface Claimed {
  monitor: DueRow;
  slot: Date;
}

export interface TickResult {
  claimed: number;
  queued: number;
  skipped: number;
}

export class MonitorScheduler {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = true;

  constructor(
    private readonly deps: {
      sql: Sql;
      reports: ReportService;
      events: EventService;
      logger: Logger;
      tickMs?: number;
    },
  ) {}

  /** Claims the monitors due at `now` (in batches), then asks for each run's report. */
  async tick(now = new Date()): Promise<TickResult> {
    const result: TickResult = { claimed: 0, queued: 0, skipped: 0 };
    for (;;) {
      const { claimed, due } = await this.claim(now);
      result.claimed += claimed.length;
      for (const run of claimed) {
        // One run that fails in an unexpected way (its skip could not be recorded: the database
        // went away) must not lose the others claimed with it.
        const queued = await this.run(run).catch((error: unknown) => {
          this.deps.logger.error("a monitor's run was claimed but neither queued nor skipped", {
            monitor_id: run.monitor.id,
            error,
          });
          return false;
        });
        if (queued) result.queued++;
        else result.skipped++;
      }
      if (due < BATCH) return result;
    }
  }

  /**
   * One batch of due monitors, each with its run recorded and its next run set, in one
   * transaction; `due` is how many were due in the batch (a full batch: look again).
   */
  async claim(now: Date): Promise<{ claimed: Claimed[]; due: number }> {
    return this.deps.sql.begin(async (tx) => {
      const due = await tx<DueRow[]>`
        select m.id, m.account_id, m.url, m.environment, m.schedule, m.mode, m.tls, m.tls_ca, m.lab, m.next_slot,
          a.plan_id, p.monthly_quota
        from monitors m join accounts a on a.id = m.account_id join plans p on p.id = a.plan_id
        where m.enabled and m.next_run_at <= ${now}
        order by m.next_run_at
        limit ${BATCH}
        for update of m skip locked`;
      const claimed: Claimed[] = [];
      for (const monitor of due) {
        // The slot after now: a monitor that was due long ago (the service was down) runs once,
        // not once per missed slot.
        let next: { slot: Date; runAt: Date };
        try {
          next = nextRun(monitor.id, monitor.schedule, now > monitor.next_slot ? now : monitor.next_slot);
        } catch (error) {
          // A schedule the parser no longer reads (checked at creation, so after an upgrade):
          // this monitor pauses, with a log line, rather than rolling back everyone's batch.
          this.deps.logger.error("a monitor's schedule cannot be read; the monitor is paused", {
            monitor_id: monitor.id,
            error,
          });
          await tx`update monitors set enabled = false, updated_at = now() where id = ${monitor.id}`;
          continue;
        }
        await tx`update monitors set next_slot = ${next.slot}, next_run_at = ${next.runAt} where id = ${monitor.id}`;
        const [recorded] = await tx`
          insert into monitor_runs (monitor_id, scheduled_for) values (${monitor.id}, ${monitor.next_slot})
          on conflict do nothing returning monitor_id`;
        if (recorded) claimed.push({ monitor, slot: monitor.next_slot });
      }
      return { claimed, due: due.length };
    });
  }

  /** Asks for the run's report; true when it was queued, false when it was skipped. */
  private async run({ monitor, slot }: Claimed): Promise<boolean> {
    const { sql, reports, events, logger } = this.deps;
    const caller = { accountId: monitor.account_id, planId: monitor.plan_id, monthlyQuota: monitor.monthly_quota };
    let problem: ApiProblem;
    try {
      const outcome = await reports.generate(caller, runInput(monitor), { respondAsync: true, monitorId: monitor.id });
      // The report exists from here on: a failure to record it leaves the run `claimed`, never skipped.
      await sql`
        update monitor_runs set status = 'queued', report_id = ${outcome.report.id}
        where monitor_id = ${monitor.id} and scheduled_for = ${slot}`.catch((error) =>
        logger.error("a monitor's run was not recorded", {
          monitor_id: monitor.id,
          report_id: outcome.report.id,
          error,
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ApiProblem) problem = error;
      else {
        logger.error("a monitor's run could not be started", { monitor_id: monitor.id, error });
        problem = new ApiProblem("internal_error", "The run could not be started because of an error of the service.");
      }
    }
    const told = await sql.begin(async (tx) => {
      await tx`
        update monitor_runs set status = 'skipped', reason = ${problem.code}, detail = ${problem.detail}
        where monitor_id = ${monitor.id} and scheduled_for = ${slot}`;
      // Told once per streak: a monitor every minute with its quota used up would otherwise
      // send an alert a minute until the month ends. The next skip for another reason, or
      // after a run, is told again.
      const [previous] = await tx<{ status: string; reason: string | null }[]>`
        select status, reason from monitor_runs
        where monitor_id = ${monitor.id} and scheduled_for < ${slot}
        order by scheduled_for desc limit 1`;
      if (previous?.status === "skipped" && previous.reason === problem.code) return false;
      await events.emit(
        monitor.account_id,
        "monitor.skipped",
        {
          monitor: eventMonitor(monitor),
          scheduled_for: slot.toISOString(),
          reason: problem.code,
          detail: problem.detail,
        },
        { tx },
      );
      return true;
    });
    logger.info("a monitor's run was skipped", { monitor_id: monitor.id, reason: problem.code, told });
    return false;
  }

  /** Ticks every TICK_MS in this process (the worker role) until stop(). */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const loop = () => {
      if (this.stopped) return;
      this.running = this.tick()
        .catch((error) => this.deps.logger.error("the monitors' tick failed", { error }))
        .finally(() => {
          this.running = undefined;
          if (!this.stopped) this.timer = setTimeout(loop, this.deps.tickMs ?? TICK_MS);
        });
    };
    loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}
