/**
 * Email alerts through a real SMTP server (`smtp-server` on loopback, with a user and a
 * password), on both backends: an event emailed at once to the account's recipients; the
 * daily digest, run through its pg-boss queue; and the owner told when a webhook is disabled
 * after failing for 3 days. Plus the configuration's checks of the SMTP and webhook settings.
 * Issue 30 (the spam relay): alerts only to recipients who confirmed by the emailed link, an
 * hourly cap per account, and refused reports counted by the dead-site limit.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { MONITORING_DAILY_QUEUE } from "../../server/monitoring/email/alert-jobs.ts";
import { ALERT_MAILS_PER_HOUR } from "../../server/monitoring/email/alert-settings.service.ts";
import type { CreatedWebhook, Delivery, Webhook } from "../../shared/monitoring-api.ts";
import { configProblems } from "../helpers/config.ts";
import { BACKENDS } from "../helpers/databases.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { startSite } from "../helpers/sites.ts";
import {
  confirmationLink,
  confirmRecipient,
  eventually,
  type MailServer,
  monitorRegressed,
  reportCompleted,
  startMailServer,
  startReceiver,
} from "./helpers.ts";

setDefaultTimeout(60_000);

describe("configuration of alerts and webhooks", () => {
  test("SMTP_URL needs SMTP_FROM; both are checked, as are WEBHOOK_SECRET_KEY and WEBHOOK_RETRY_SCHEDULE", () => {
    expect(configProblems({ SMTP_URL: "smtp://127.0.0.1:2525" })).toEqual([
      "SMTP_URL needs SMTP_FROM, the address alert emails come from",
    ]);
    expect(configProblems({ SMTP_URL: "http://mail.example.com", SMTP_FROM: "a@example.com" })).toEqual([
      'SMTP_URL must start with smtp: or smtps:, got "http:"',
    ]);
    expect(
      configProblems({ SMTP_URL: "smtps://u:p@mail.example.com:465", SMTP_FROM: "wpreport <alerts@example.com>" }),
    ).toEqual([]);
    expect(configProblems({ SMTP_FROM: "not an address" })).toEqual([
      'SMTP_FROM must be an address such as alerts@example.com or "wpreport <alerts@example.com>"',
    ]);
    expect(configProblems({ WEBHOOK_SECRET_KEY: "c2hvcnQ=" })[0]).toStartWith(
      "WEBHOOK_SECRET_KEY must be 32 random bytes",
    );
    expect(configProblems({ WEBHOOK_SECRET_KEY: Buffer.alloc(32, 1).toString("base64") })).toEqual([]);
    expect(configProblems({ WEBHOOK_RETRY_SCHEDULE: "30s,2m,1d" })[0]).toStartWith("WEBHOOK_RETRY_SCHEDULE must be");
    expect(configProblems({ WEBHOOK_RETRY_SCHEDULE: "0s" })[0]).toStartWith("WEBHOOK_RETRY_SCHEDULE must be");
    expect(configProblems({ WEBHOOK_RETRY_SCHEDULE: "5s, 1m, 2h" })).toEqual([]);
  });
});

for (const backend of BACKENDS) {
  describe(`email alerts (${backend})`, () => {
    let mail: MailServer;
    let service: TestService;

    beforeAll(async () => {
      mail = await startMailServer();
      service = await startTestService({
        backend,
        env: {
          SMTP_URL: mail.url,
          SMTP_FROM: "wpreport alerts <alerts@wpreport.test>",
          WEBHOOK_SECRET_KEY: Buffer.alloc(32, 5).toString("base64"),
          WEBHOOK_RETRY_SCHEDULE: "1s",
        },
      });
    });
    afterAll(async () => {
      await service?.stop();
      await mail?.stop();
    });

    const account = async (label: string) => {
      const made = await service.token(`${label}-${backend}-${Date.now()}@example.com`);
      await service.db.sql`update accounts set rate_limit_per_minute = 100000 where id = ${made.accountId}`;
      return made;
    };
    const mailsTo = (address: string) =>
      mail.mails.filter((item) => item.envelopeTo.includes(address) && !item.subject.includes("Confirm"));
    const confirmAll = async (...addresses: string[]) => {
      for (const address of addresses) expect((await confirmRecipient(service.url, mail, address)).status).toBe(200);
    };

    test("an event the account subscribed to is emailed at once to its recipients; others are not", async () => {
      const { accountId } = await account("immediate");
      const { alerts, events } = service.running.services.monitoring;
      await alerts.save(accountId, {
        recipients: ["Ops@Agency.example", "lead@agency.example"],
        digest: false,
        events: ["monitor.regressed"],
      });
      await confirmAll("ops@agency.example", "lead@agency.example");
      const emitted = await events.emit(accountId, "monitor.regressed", monitorRegressed());
      expect(emitted.email).toBe("immediate");
      const [message] = await eventually("the alert email", () => {
        const found = mailsTo("ops@agency.example");
        return found.length > 0 ? found : undefined;
      });
      if (!message) throw new Error("no email");
      expect(message.from).toBe('"wpreport alerts" <alerts@wpreport.test>');
      expect(message.user).toBe("alerts"); // it logged in with SMTP_URL's credentials
      expect(message.envelopeTo.sort()).toEqual(["lead@agency.example", "ops@agency.example"]);
      expect(message.subject).toBe(
        "[wpreport] Regression on https://client-a.example/ (production): 1 regression, grade D",
      );
      expect(message.text).toContain("[high] XML-RPC is enabled <!channel> & more (security.xmlrpc_enabled)");
      expect(message.text).toContain("http://127.0.0.1:3000/reports/rep_01m8bq00000000000000000001");
      expect(message.text).toContain(`${service.url}/alerts`);

      // Not subscribed: no email, and emit says so.
      const quiet = await events.emit(accountId, "report.completed", reportCompleted());
      expect(quiet.email).toBe("none");
      await Bun.sleep(1_500);
      expect(mailsTo("ops@agency.example").length).toBe(1);
    });

    test("the daily digest, run through its queue: one email with the events since the last one", async () => {
      const { accountId } = await account("digest");
      const { alerts, events } = service.running.services.monitoring;
      await alerts.save(accountId, {
        recipients: ["digest@agency.example"],
        digest: true,
        events: ["monitor.regressed", "report.completed"],
      });
      await confirmAll("digest@agency.example");
      const first = await events.emit(accountId, "monitor.regressed", monitorRegressed());
      const second = await events.emit(
        accountId,
        "report.completed",
        reportCompleted("rep_01m8bq00000000000000000009"),
      );
      expect([first.email, second.email]).toEqual(["digest", "digest"]);
      await events.emit(accountId, "report.failed", {
        report: {
          id: "rep_01m8bq0000000000000000000a",
          url: "https://client-b.example/",
          environment: null,
          status: "failed",
          error: { code: "site_unreachable", detail: "No answer." },
          created_at: "2026-11-26T07:00:00.000Z",
          links: { api: "http://127.0.0.1:3000/api/report/x", web: "http://127.0.0.1:3000/reports/x" },
        },
        monitor_id: null,
      });
      await Bun.sleep(1_000);
      expect(mailsTo("digest@agency.example")).toEqual([]); // nothing at once
      const [{ until: windowStart } = { until: new Date(0) }] = await service.db.sql<{ until: Date }[]>`
        select digest_sent_until as until from alert_settings where account_id = ${accountId}`;

      // What pg-boss's daily schedule does at 07:00 UTC: one job on the queue.
      await service.running.services.queue.boss.send(MONITORING_DAILY_QUEUE, {});
      const [digest] = await eventually("the digest", () => {
        const found = mailsTo("digest@agency.example");
        return found.length > 0 ? found : undefined;
      });
      if (!digest) throw new Error("no digest");
      expect(digest.subject).toBe("[wpreport] Daily digest: 2 events (1 monitor.regressed, 1 report.completed)");
      expect(digest.text).toContain("Regression on https://client-a.example/ (production)");
      expect(digest.text).toContain("Report completed: https://client-a.example/ (production) — grade B, score 84");
      expect(digest.text).not.toContain("client-b"); // report.failed: not subscribed

      // The next run starts where this one ended (once the job has moved the window on): nothing new, no email.
      await eventually("the digest window to move on", async () => {
        const [row] = await service.db.sql<{ until: Date }[]>`
          select digest_sent_until as until from alert_settings where account_id = ${accountId}`;
        return row && row.until.getTime() > windowStart.getTime() ? row : undefined;
      });
      await service.running.services.monitoring.daily();
      await Bun.sleep(500);
      expect(mailsTo("digest@agency.example").length).toBe(1);
    });

    test("a webhook failing for 3 days is disabled, and its owner and the recipients are told by email", async () => {
      const { token, accountId } = await account("owner");
      const owner = (await service.db.sql<{ email: string }[]>`select email from accounts where id = ${accountId}`)[0]
        ?.email as string;
      await service.running.services.monitoring.alerts.save(accountId, {
        recipients: ["oncall@agency.example"],
        digest: true,
        events: ["vulnerability.found"],
      });
      await confirmAll("oncall@agency.example");
      const receiver = startReceiver(() => 502);
      try {
        const created = await service.call<CreatedWebhook>("POST", "/api/webhooks", {
          token,
          body: { url: receiver.url, events: ["report.completed"] },
        });
        const hook = created.body;
        // Three days of failures, as if they had happened.
        await service.db
          .sql`update webhooks set failing_since = now() - interval '3 days 1 minute' where id = ${hook.id}`;
        const sent = await service.call<Delivery>("POST", `/api/webhooks/${hook.id}/test`, { token });
        const disabled = await eventually("the webhook to be disabled", async () => {
          const { body } = await service.call<Webhook>("GET", `/api/webhooks/${hook.id}`, { token });
          return body.status === "disabled" ? body : undefined;
        });
        expect(disabled.disabled_reason).toBe(
          "Disabled after every delivery failed for 3 days. The last attempt: The endpoint answered 502; only a 2xx status counts as delivered.",
        );
        const [notice] = await eventually("the owner's email", () => {
          const found = mailsTo(owner.toLowerCase());
          return found.length > 0 ? found : undefined;
        });
        if (!notice) throw new Error("no email");
        expect(notice.envelopeTo.sort()).toEqual([owner.toLowerCase(), "oncall@agency.example"].sort());
        expect(notice.subject).toBe(`[wpreport] Webhook disabled: ${receiver.url}`);
        expect(notice.text).toContain(disabled.disabled_reason as string);
        expect(notice.text).toContain(`${service.url}/alerts/webhooks/${hook.id}`);

        // The test delivery itself ends as failed (a test is tried once); the owner is told once only.
        const done = await eventually("the test delivery to end", async () => {
          const { body } = await service.call<Delivery>("GET", `/api/webhooks/${hook.id}/deliveries/${sent.body.id}`, {
            token,
          });
          return body.status === "failed" ? body : undefined;
        });
        expect(done.attempts).toBe(1);
        // Disabled: events no longer go to it.
        const before = receiver.received.length;
        const emitted = await service.running.services.monitoring.events.emit(
          accountId,
          "report.completed",
          reportCompleted(),
        );
        expect(emitted.deliveries).toBe(0);
        await Bun.sleep(1_200);
        expect(receiver.received.length).toBe(before);
        expect(mailsTo(owner.toLowerCase()).length).toBe(1);
      } finally {
        receiver.stop();
      }
    });

    test("alert email goes only to recipients who confirmed by the link sent to them (issue 30)", async () => {
      const { accountId } = await account("confirm");
      const { alerts, events } = service.running.services.monitoring;
      await alerts.save(accountId, {
        recipients: ["victim-1@elsewhere.example", "victim-2@elsewhere.example"],
        digest: false,
        events: ["monitor.regressed", "report.failed"],
      });
      // Each gets one email: the link to confirm, saying who added it; no alert yet.
      const link = await confirmationLink(mail, "victim-1@elsewhere.example");
      await confirmationLink(mail, "victim-2@elsewhere.example");
      const unconfirmed = await events.emit(accountId, "monitor.regressed", monitorRegressed());
      expect(unconfirmed.email).toBe("none");
      // Opening the link (as a mail scanner does) confirms nothing; a made-up token is refused.
      expect((await fetch(link)).status).toBe(200);
      expect((await fetch(`${service.url}/alerts/confirm?token=${"x".repeat(32)}`)).status).toBe(404);
      expect((await alerts.get(accountId)).confirmed).toEqual([]);
      // Saving again does not mail the same addresses again.
      await alerts.save(accountId, {
        recipients: ["victim-1@elsewhere.example", "victim-2@elsewhere.example"],
        digest: false,
        events: ["monitor.regressed", "report.failed"],
      });
      // One presses Confirm: only that one gets alerts; the link works once.
      await confirmAll("victim-1@elsewhere.example");
      const confirmations = mail.mails.filter(
        (item) => item.subject.includes("Confirm") && item.to[0]?.startsWith("victim-"),
      );
      expect(confirmations.length).toBe(2);
      const again = await confirmRecipient(service.url, mail, "victim-1@elsewhere.example").catch((error) => error);
      expect(String(again)).toContain("404");
      expect((await events.emit(accountId, "monitor.regressed", monitorRegressed())).email).toBe("immediate");
      const [alert] = await eventually("the alert email", () => {
        const found = mailsTo("victim-1@elsewhere.example");
        return found.length > 0 ? found : undefined;
      });
      expect(alert?.envelopeTo).toEqual(["victim-1@elsewhere.example"]);
      expect(mailsTo("victim-2@elsewhere.example")).toEqual([]);
    });

    test("alert email is capped per account and hour; the last one says so (issue 30)", async () => {
      const { accountId } = await account("capped");
      const { alerts, events } = service.running.services.monitoring;
      await alerts.save(accountId, {
        recipients: ["flooded@agency.example"],
        digest: false,
        events: ["monitor.regressed"],
      });
      await confirmAll("flooded@agency.example"); // the confirmation is one of the hour's emails
      for (let i = 0; i < ALERT_MAILS_PER_HOUR + 5; i++)
        await events.emit(accountId, "monitor.regressed", monitorRegressed());
      const cap = ALERT_MAILS_PER_HOUR - 1;
      await eventually("the hour's alert emails", () => mailsTo("flooded@agency.example").length >= cap || undefined);
      await Bun.sleep(2_000);
      const received = mailsTo("flooded@agency.example");
      expect(received.length).toBe(cap);
      expect(received.filter((item) => item.text.includes("This is the last alert email")).length).toBe(1);
      // Past the cap the events are still recorded (the log, webhooks and the digest have them).
      const [row] = await service.db.sql<{ n: number }[]>`
        select count(*)::int as n from events where account_id = ${accountId} and type = 'monitor.regressed'`;
      expect(row?.n).toBe(ALERT_MAILS_PER_HOUR + 5);
    });

    test("reports refused when analysed count toward the dead-site limit (issue 30)", async () => {
      // A site the policy allows that sends the analysis to an address it refuses: each report
      // fails url_not_allowed (free, a report.failed alert). Uncounted, a Free account could
      // make them — and their alert emails — without end.
      const site = startSite({
        "/": () => new Response(null, { status: 302, headers: { location: "http://10.1.2.3/" } }),
      });
      try {
        const { token, accountId } = await service.token(`refused-${backend}-${Date.now()}@example.com`, "free");
        // Its polling is not what this test is about.
        await service.db.sql`update accounts set rate_limit_per_minute = 100000 where id = ${accountId}`;
        const ask = () =>
          service.call<{ id: string; code: string; limit: string }>("POST", "/api/generate-report", {
            token,
            body: { url: site.url },
            headers: { prefer: "respond-async" },
          });
        const ids: string[] = [];
        for (let i = 0; i < 2; i++) {
          const accepted = await ask();
          expect(accepted.status).toBe(202);
          ids.push(accepted.body.id);
        }
        for (const id of ids) {
          const failed = await eventually(`report ${id} to fail`, async () => {
            const { body } = await service.call<{ status: string; errors: { kind: string }[] }>(
              "GET",
              `/api/report/${id}`,
              {
                token,
              },
            );
            return body.status === "failed" ? body : undefined;
          });
          expect(failed.errors[0]?.kind).toBe("url_not_allowed");
        }
        const refused = await ask();
        expect(refused.status).toBe(429);
        expect(refused.body.limit).toBe("unreachable_per_minute");
      } finally {
        site.stop();
      }
    });
  });
}
