/**
 * Helpers of the monitoring tests: a real webhook receiver on loopback that verifies every
 * delivery's signature with the `standardwebhooks` package (as users' receivers do), a real
 * SMTP server (`smtp-server`) that keeps what it receives, parsed by `mailparser`, and
 * well-formed event data to emit.
 */
import { type AddressInfo, createServer } from "node:net";
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";
import { Webhook } from "standardwebhooks";
import type { EventData } from "../../shared/events.ts";
import { hiddenCsrf, WebSession } from "../helpers/web-session.ts";

export interface ReceivedDelivery {
  /** Lower-case header names. */
  headers: Record<string, string>;
  body: string;
  /** The status the receiver answered with. */
  answered: number;
}

export interface Receiver {
  url: string;
  port: number;
  received: ReceivedDelivery[];
  /** The parsed payload when `secret` verifies the delivery; throws WebhookVerificationError otherwise. */
  verify(secret: string, delivery: ReceivedDelivery): unknown;
  stop(): void;
}

/**
 * A receiver that answers the n-th delivery (1-based) with `answer(n)` (a status, or a
 * Response such as a redirect); 200 by default.
 */
export function startReceiver(
  answer: (n: number) => number | Response = () => 200,
  path = "/hooks/wpreport",
): Receiver {
  const received: ReceivedDelivery[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const body = await request.text();
      const reply = answer(received.length + 1);
      const response =
        typeof reply === "number" ? new Response(reply < 300 ? "thanks" : "not now", { status: reply }) : reply;
      received.push({ headers: Object.fromEntries(request.headers), body, answered: response.status });
      return response;
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}${path}`,
    port: server.port as number,
    received,
    verify: (secret, delivery) => new Webhook(secret).verify(delivery.body, delivery.headers),
    stop: () => server.stop(true),
  };
}

/** Polls `check` until it returns a value (not undefined/false), or fails after `ms`. */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  ms = 20_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(100);
  }
}

export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  /** The SMTP envelope's recipients (RCPT TO). */
  envelopeTo: string[];
  user: string | undefined;
}

export interface MailServer {
  /** For SMTP_URL, with the credentials it accepts. */
  url: string;
  mails: ReceivedMail[];
  stop(): Promise<void>;
}

/** A real SMTP server on loopback: plain SMTP (no STARTTLS), AUTH PLAIN/LOGIN with one user. */
export async function startMailServer(): Promise<MailServer> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    authMethods: ["PLAIN", "LOGIN"],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === "alerts" && auth.password === "s3cret pass") return callback(null, { user: "alerts" });
      return callback(new Error("Invalid username or password"));
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          const to = Array.isArray(parsed.to) ? parsed.to : parsed.to ? [parsed.to] : [];
          mails.push({
            from: parsed.from?.text ?? "",
            to: to.flatMap((group) => group.value.map((entry) => entry.address ?? "")),
            subject: parsed.subject ?? "",
            text: parsed.text ?? "",
            envelopeTo: session.envelope.rcptTo.map((rcpt) => rcpt.address),
            user: session.user as string | undefined,
          });
          callback();
        })
        .catch((error: Error) => callback(error));
    },
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve((server.server.address() as AddressInfo).port));
  });
  return {
    url: `smtp://alerts:${encodeURIComponent("s3cret pass")}@127.0.0.1:${port}`,
    mails,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A port nothing listens on (for endpoints that must not be reached). */
export function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

const base = "http://127.0.0.1:3000";

/** A report.completed event's data, as the report worker will emit it. */
export function reportCompleted(id = "rep_01m8bq00000000000000000000"): EventData<"report.completed"> {
  return {
    report: {
      id,
      url: "https://client-a.example/",
      environment: "production",
      status: "completed",
      grade: "B",
      score: 84,
      created_at: "2026-11-26T07:00:00.000Z",
      completed_at: "2026-11-26T07:00:12.000Z",
      links: { api: `${base}/api/report/${id}`, web: `${base}/reports/${id}` },
    },
    monitor_id: null,
  };
}

/** A monitor.regressed event's data, with site text that must stay text. */
export function monitorRegressed(): EventData<"monitor.regressed"> {
  const { report } = reportCompleted("rep_01m8bq00000000000000000001");
  return {
    monitor: { id: "mon_01m8bq00000000000000000000", url: report.url, environment: "production", schedule: "daily" },
    report: { ...report, grade: "D", score: 51 },
    baseline: {
      id: "rep_01m8bq00000000000000000002",
      rule: "last-passing",
      reason: "the newest earlier report that passed the gate",
    },
    verdict: { result: "fail", reasons: ["1 new high-severity failure"], warnings: [] },
    regressions: [
      {
        id: "security.xmlrpc_enabled",
        title: "XML-RPC is enabled <!channel> & more",
        category: "security",
        severity: "high",
        before: "pass",
        after: "fail",
        new_check: false,
        message: "xmlrpc.php answers",
        remediation: "Disable XML-RPC",
        evidence: [],
      },
    ],
  };
}

/** The confirmation link of the newest confirmation email `mail` received for `address`. */
export async function confirmationLink(mail: MailServer, address: string): Promise<string> {
  const message = await eventually(`the confirmation email to ${address}`, () =>
    mail.mails.findLast((item) => item.envelopeTo.includes(address) && item.subject.includes("Confirm")),
  );
  const link = /https?:\/\/\S+\/alerts\/confirm\?token=[A-Za-z0-9_-]+/.exec(message.text)?.[0];
  if (!link) throw new Error(`no confirmation link in: ${message.text}`);
  return link;
}

/**
 * What a recipient does with the confirmation email: opens its link in a browser (no session
 * of the account) and presses Confirm. Returns the confirming POST's answer.
 */
export async function confirmRecipient(baseUrl: string, mail: MailServer, address: string): Promise<Response> {
  const link = new URL(await confirmationLink(mail, address));
  const browser = new WebSession(baseUrl);
  const page = await browser.get(link.pathname + link.search);
  if (page.status !== 200) throw new Error(`the confirmation page answered ${page.status}`);
  const token = link.searchParams.get("token") ?? "";
  return browser.post("/alerts/confirm", { token }, hiddenCsrf(await page.text()));
}
