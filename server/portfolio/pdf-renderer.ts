/**
 * HTML → PDF with the machine's Chromium (CHROMIUM_PATH; Debian's /usr/bin/chromium by
 * default), driven by playwright-core — never a downloaded browser. Used for client reports.
 *
 * The document is treated as hostile, since site text is in it (escaped, but still): the
 * page runs with JavaScript disabled, every request it would make is aborted (the report is
 * self-contained: its only image is a data: URL), service workers are blocked, and Chromium
 * runs with `--disable-background-networking`. Each render gets a fresh browser context, so
 * nothing carries from one report to the next.
 *
 * One browser per process, launched on first use and closed after a minute without work; at
 * most two renders at once (a render is CPU work on a small machine), a short queue behind
 * them, and a deadline per render. A crashed browser is relaunched by the next render.
 *
 * The queue is fair per account (issue 30: another account's PDF took 10.8 s instead of 1.7 s
 * behind one account's batch): each account waits in its own line, a freed render goes to the
 * accounts in turn (round robin), and one account may have only a few renders waiting.
 */
import { type Browser, chromium } from "playwright-core";
import { ApiProblem } from "../platform/http/problem.ts";
import type { Logger } from "../platform/logger.ts";

export const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"];

/** Page numbers at the foot of every page (our markup only: no site text in it). */
const FOOTER =
  '<div style="width:100%;font-size:8px;color:#4f5969;text-align:center;font-family:sans-serif"><span class="pageNumber"></span> / <span class="totalPages"></span></div>';

export interface PdfRendererOptions {
  /** Renders at once; more wait in line. */
  concurrency: number;
  /** Renders that may wait; past it, 503 unavailable. */
  queueLimit: number;
  /** Renders one account may have waiting; past it, 503 unavailable for that account. */
  accountQueueLimit: number;
  /** One render's deadline (load + print). */
  timeoutMs: number;
  /** The browser closes after this long without a render. */
  idleMs: number;
}

export const DEFAULT_PDF_OPTIONS: PdfRendererOptions = {
  concurrency: 2,
  queueLimit: 20,
  accountQueueLimit: 4,
  timeoutMs: 30_000,
  idleMs: 60_000,
};

export class PdfRenderer {
  private browser: Promise<Browser> | undefined;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private running = 0;
  /** Each account's line, in the order the accounts are served (round robin: a served account goes to the end). */
  private readonly waiting = new Map<string, (() => void)[]>();
  private waitingCount = 0;
  /** Requests the rendered documents tried to make, all refused (a well-formed report makes none). */
  blockedRequests = 0;

  constructor(
    readonly executablePath: string,
    private readonly logger: Logger,
    private readonly options: PdfRendererOptions = DEFAULT_PDF_OPTIONS,
  ) {}

  private launch(): Promise<Browser> {
    if (!this.browser) {
      const launching = chromium.launch({
        executablePath: this.executablePath,
        args: CHROMIUM_ARGS,
        timeout: 20_000,
        // The service handles its own signals (graceful stop); the browser is closed in close().
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
      this.browser = launching;
      launching.then(
        (browser) =>
          browser.on("disconnected", () => {
            if (this.browser === launching) this.browser = undefined;
          }),
        () => {
          if (this.browser === launching) this.browser = undefined;
        },
      );
    }
    return this.browser;
  }

  private async slot(accountId: string): Promise<void> {
    if (this.running < this.options.concurrency) {
      this.running++;
      return;
    }
    const line = this.waiting.get(accountId) ?? [];
    if (this.waitingCount >= this.options.queueLimit || line.length >= this.options.accountQueueLimit) {
      throw new ApiProblem("unavailable", "Too many PDFs are being made right now; try again in a moment.", {
        headers: { "retry-after": "5" },
      });
    }
    // The slot is handed over by release(), so `running` stays counted.
    await new Promise<void>((resolve) => {
      line.push(resolve);
      this.waiting.set(accountId, line);
      this.waitingCount++;
    });
  }

  /** Hands the freed render to the next account in turn; that account goes to the end of the turn. */
  private release(): void {
    const [accountId, line] = this.waiting.entries().next().value ?? [];
    const next = line?.shift();
    if (accountId !== undefined) {
      this.waiting.delete(accountId);
      if (line && line.length > 0) this.waiting.set(accountId, line);
    }
    if (next) {
      this.waitingCount--;
      next();
    } else this.running--;
    if (this.running === 0) this.closeWhenIdle();
  }

  private closeWhenIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.running === 0) void this.closeBrowser();
    }, this.options.idleMs);
    this.idleTimer.unref?.();
  }

  private async closeBrowser(): Promise<void> {
    const browser = this.browser;
    this.browser = undefined;
    if (browser) await (await browser.catch(() => undefined))?.close().catch(() => {});
  }

  /** The document printed to A4 pages (its own @page rules win), backgrounds included; `accountId` is whose line it waits in. */
  async render(html: string, accountId = ""): Promise<Uint8Array<ArrayBuffer>> {
    await this.slot(accountId);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    try {
      const browser = await this.launch();
      const context = await browser.newContext({ javaScriptEnabled: false, serviceWorkers: "block" });
      const deadline = new Promise<never>((_, reject) => {
        const timer = setTimeout(
          () => reject(new ApiProblem("unavailable", "Making the PDF took too long; try again in a moment.")),
          this.options.timeoutMs,
        );
        timer.unref?.();
      });
      try {
        const work = (async () => {
          await context.route("**/*", (route) => {
            const request = route.request();
            this.blockedRequests++;
            this.logger.debug("pdf: request from the document refused", { url: request.url().slice(0, 200) });
            // The page leaving itself (a meta refresh, a link target): "204 No Content" makes the
            // browser stay on the document, where an aborted navigation would replace it with an
            // error page (and fail the print).
            if (request.isNavigationRequest() && request.frame().parentFrame() === null)
              return route.fulfill({ status: 204, body: "" });
            return route.abort("blockedbyclient");
          });
          const page = await context.newPage();
          await page.setContent(html, { waitUntil: "load", timeout: this.options.timeoutMs });
          const pdf = await page.pdf({
            format: "A4",
            printBackground: true,
            preferCSSPageSize: true,
            displayHeaderFooter: true,
            headerTemplate: "<span></span>",
            footerTemplate: FOOTER,
            tagged: true,
          });
          return new Uint8Array(pdf);
        })();
        work.catch(() => {}); // the deadline may win; its rejection is then not the answer
        return await Promise.race([work, deadline]);
      } finally {
        await context.close().catch(() => {});
      }
    } catch (error) {
      if (error instanceof ApiProblem) throw error;
      this.logger.error("pdf: rendering failed", { error });
      // A browser that failed is dropped; the next render launches a new one.
      await this.closeBrowser();
      throw new ApiProblem("unavailable", "The PDF could not be made right now; try again in a moment.", {
        headers: { "retry-after": "5" },
      });
    } finally {
      this.release();
    }
  }

  async close(): Promise<void> {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    await this.closeBrowser();
  }
}
