/**
 * Sending alert emails over SMTP with nodemailer (SMTP_URL, SMTP_FROM). Plain text only:
 * nothing in an alert needs HTML, and text cannot be made to look like something else.
 * SMTP_URL carries the credentials: it is never logged, and errors are reported without it.
 */
import nodemailer, { type Transporter } from "nodemailer";
import { oneLine } from "../../../shared/untrusted-text.ts";

export interface MailMessage {
  to: string[];
  subject: string;
  text: string;
}

export class Mailer {
  private readonly transport: Transporter;

  constructor(
    smtpUrl: string,
    private readonly from: string,
  ) {
    // Connection timeouts well under the job's expiry (alert-jobs.ts); a pool would hold
    // connections open between alerts, which are rare.
    this.transport = nodemailer.createTransport({
      url: smtpUrl,
      connectionTimeout: 15_000,
      greetingTimeout: 15_000,
      socketTimeout: 30_000,
    });
  }

  async send(message: MailMessage): Promise<void> {
    if (message.to.length === 0) return;
    try {
      await this.transport.sendMail({
        from: this.from,
        to: message.to,
        // A subject is one line: no header injection, whatever text reached it.
        subject: oneLine(message.subject, 200),
        text: message.text,
        headers: { "auto-submitted": "auto-generated" },
      });
    } catch (error) {
      // nodemailer's messages name the server, never the credentials; keep only that.
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`the SMTP server refused the alert email: ${oneLine(reason, 300)}`);
    }
  }

  close(): void {
    this.transport.close();
  }
}
