/**
 * SafeClient: the analyzer's only way onto the network. One per analysis.
 *
 * Per request: the target policy, address and port, on every hop (IP literals here and in
 * the Agent's connector, names in its lookup), manual redirects up to a maximum, a total
 * timeout plus the report's deadline, a body cap counted *after* decompression (compression
 * bombs stop at the cap), and a timing row for the report. Per site: at most `concurrency`
 * requests in flight over HTTP/1.1 (one per connection the agent allows), `multiplexedConcurrency`
 * once the site answered over HTTP/2 (streams on one connection); waiting requests marked
 * `urgent` (the follow-ups of chained probes, a redirect's next hop) go before the others.
 *
 * Site credentials (basic auth, headers, cookies of a password-protected staging site) are added
 * to a request only when its URL — each redirect hop checked on its own — is on the credentials'
 * origin: never to another origin, an asset host, or a redirect that leaves the site.
 */
import { Readable } from "node:stream";
import zlib from "node:zlib";
import ipaddr from "ipaddr.js";
import type { Agent, Dispatcher } from "undici/index.js";
import { request } from "undici/index.js";
import type { TimingRow } from "../../../shared/report.ts";
import { retryAfterMs } from "../../../shared/retry-after.ts";
import { PaceWindow } from "./pace-window.ts";
import { RATE_LIMIT_DEFAULT_WAIT_MS, RATE_LIMIT_MAX_WAIT_MS, RATE_LIMIT_RETRIES } from "./rate-limit.ts";
import {
  H2_STREAMS_PER_CONNECTION,
  type HttpVersion,
  MAX_CONNECTIONS_PER_SITE,
  negotiatedHttpVersion,
} from "./safe-agent.ts";
import { whenSent, withSendTime } from "./send-time.ts";
import { portOf, TargetBlockedError, type TargetPolicy } from "./target-policy.ts";

export interface ClientLimits {
  /** Largest decoded body kept per response; the rest is not read. */
  maxBodyBytes: number;
  maxRedirects: number;
  /** Total time for one request, headers and body. */
  requestTimeoutMs: number;
  /**
   * Requests in flight at once to the site over HTTP/1.1: no more than the agent's
   * connections per site (MAX_CONNECTIONS_PER_SITE), or requests would queue inside the
   * agent with their clocks running.
   */
  concurrency: number;
  /**
   * Requests in flight once the site answered over HTTP/2, all on one connection
   * (default: H2_STREAMS_PER_CONNECTION, what one connection carries).
   */
  multiplexedConcurrency?: number;
  /**
   * Decoded bytes one analysis may read in all (ANALYSIS_MAX_BYTES). Past it, further
   * requests fail with kind `budget` and the report is partial, with those errors listed.
   */
  maxTotalBytes: number;
  /**
   * Requests of this analysis that may reach the site in any one second, wherever the second
   * begins (its share of the target's, server/reports/pace-shares.ts; how: pace-window.ts). A
   * whole number: a fraction is rounded down, to at least 1. Absent or 0: no pace.
   */
  requestsPerSecond?: number;
}

export const DEFAULT_CLIENT_LIMITS: ClientLimits = {
  maxBodyBytes: 5 * 1024 * 1024,
  maxRedirects: 5,
  requestTimeoutMs: 10_000,
  concurrency: MAX_CONNECTIONS_PER_SITE,
  multiplexedConcurrency: H2_STREAMS_PER_CONNECTION,
  maxTotalBytes: 32 * 1024 * 1024,
};

export type FetchFailureKind =
  | "blocked"
  | "dns"
  | "refused"
  | "tls"
  | "timeout"
  | "too_many_redirects"
  | "invalid_redirect"
  | "protocol"
  | "budget"
  | "aborted";

export class FetchFailure extends Error {
  constructor(
    readonly kind: FetchFailureKind,
    message: string,
    readonly url: string,
  ) {
    super(message);
    this.name = "FetchFailure";
  }
}

/** One request the analyzer made, as it appears in the report (shared/report.ts). */
export type { TimingRow } from "../../../shared/report.ts";

export interface Hop {
  url: string;
  status: number;
}

export interface FetchResult {
  /** URL that produced this response (after redirects). */
  url: string;
  status: number;
  headers: Headers;
  /** Every Set-Cookie header, which Headers would otherwise merge. */
  setCookies: string[];
  body: Buffer;
  /** True when the body was cut at the size cap. */
  truncated: boolean;
  redirects: Hop[];
  /** From the request's start (a connection's set-up included) to the first byte of the answer. */
  ttfbMs: number;
  /**
   * From the request written on its connection to the first byte of the answer: the server's
   * time and one round trip, without DNS, TCP and TLS set-up (send-time.ts).
   */
  sentTtfbMs: number;
  totalMs: number;
  encoding: string | null;
  /** HTTP version of the exchange: "1.1", or "2" where the site negotiated h2 (ALPN). */
  httpVersion: HttpVersion;
}

/** Headers that open a protected site, for its origin only (shared/site-auth.ts makes them). */
export interface SiteCredentials {
  /** The analyzed URL's origin (scheme, host, port): the only one the headers are sent to. */
  origin: string;
  headers: Record<string, string>;
}

export interface FetchOptions {
  method?: "GET" | "HEAD" | "POST";
  headers?: Record<string, string>;
  body?: string;
  /** Follow redirects (default true). */
  follow?: boolean;
  /** Tighter cap than the client's for this request (e.g. probes). */
  maxBodyBytes?: number;
  /** Tighter timeout for this request. */
  timeoutMs?: number;
  /** Stop after the headers (timing samples): the body is not read. */
  discardBody?: boolean;
  /**
   * Waits before requests that are not: for what other requests wait on (chained probes),
   * so a chain's next link does not queue behind the whole first wave.
   */
  urgent?: boolean;
  /**
   * A POST that changes nothing (XML-RPC system.listMethods). undici holds a non-idempotent
   * request until the connection is otherwise idle — on an HTTP/2 connection, until every
   * stream in flight has finished — and everything queued behind it waits too.
   */
  idempotent?: boolean;
}

const DECODERS: Record<string, () => NodeJS.ReadWriteStream> = {
  gzip: () => zlib.createGunzip(),
  "x-gzip": () => zlib.createGunzip(),
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress(),
};

/** The same decoders, for a whole body at once (readCapped); they throw past maxOutputLength. */
const DECODE_AT_ONCE: Record<string, (data: Buffer, options: { maxOutputLength: number }) => Buffer> = {
  gzip: (data, options) => zlib.gunzipSync(data, options),
  "x-gzip": (data, options) => zlib.gunzipSync(data, options),
  deflate: (data, options) => zlib.inflateSync(data, options),
  br: (data, options) => zlib.brotliDecompressSync(data, options),
};

/** Bodies we do not want are drained up to this size to keep the connection; beyond, it is closed. */
const DUMP_LIMIT = 256 * 1024;

export class SafeClient {
  readonly timings: TimingRow[] = [];
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly urgentWaiting: (() => void)[] = [];
  /** Set when a response came over HTTP/2: the site multiplexes, more may be in flight. */
  private multiplexed = false;
  /** Decoded bytes read so far, against limits.maxTotalBytes. */
  private bytesRead = 0;
  /** The pace (pace-window.ts); undefined when there is none. */
  private readonly paceWindow: PaceWindow | undefined;
  /** 429 answers asked again after their Retry-After. */
  rateLimitRetries = 0;
  /** The agent, telling each request when it went on the wire (send-time.ts). */
  private readonly dispatcher: Dispatcher;

  constructor(
    private readonly agent: Agent,
    private readonly policy: TargetPolicy,
    private readonly deadline: AbortSignal,
    private readonly userAgent: string,
    private readonly limits: ClientLimits = DEFAULT_CLIENT_LIMITS,
    private readonly credentials?: SiteCredentials,
  ) {
    this.dispatcher = withSendTime(agent);
    const rate = limits.requestsPerSecond ?? 0;
    if (rate > 0) this.paceWindow = new PaceWindow(Math.max(1, Math.floor(rate)), (ms) => abortableSleep(ms, deadline));
  }

  /** The most requests that reach the site in any one second; 0 when there is no pace. */
  get pace(): number {
    return this.paceWindow?.limit ?? 0;
  }

  /** Requests that waited for the pace (the report says the limit was hit). */
  get pacedRequests(): number {
    return this.paceWindow?.waited ?? 0;
  }

  /** The origin the site credentials are for, when there are any. */
  get credentialsOrigin(): string | undefined {
    return this.credentials?.origin;
  }

  async fetch(url: string, options: FetchOptions = {}): Promise<FetchResult> {
    const redirects: Hop[] = [];
    let current = url;
    let method = options.method ?? "GET";
    let body = options.body;
    // A redirect's next hop and a 429 asked again follow an answer: like a chain's next link,
    // they go before requests still waiting (a probe's redirect queued behind the whole wave
    // made it the report's last request).
    const followUp = { ...options, urgent: true };
    for (let hop = 0; ; hop++) {
      let result = await this.fetchOnce(current, method, body, hop === 0 ? options : followUp);
      const wait = result.status === 429 ? this.rateLimitWait(result.headers.get("retry-after")) : undefined;
      if (wait !== undefined) {
        this.rateLimitRetries += 1;
        try {
          await abortableSleep(wait, this.deadline);
        } catch (error) {
          throw classify(error, current, this.deadline.aborted);
        }
        result = await this.fetchOnce(current, method, body, followUp);
      }
      const location = result.headers.get("location");
      const isRedirect = [301, 302, 303, 307, 308].includes(result.status) && location;
      if (!isRedirect || options.follow === false) {
        return { ...result, redirects };
      }
      redirects.push({ url: current, status: result.status });
      if (hop >= this.limits.maxRedirects) {
        throw new FetchFailure("too_many_redirects", `more than ${this.limits.maxRedirects} redirects`, url);
      }
      let next: URL;
      try {
        next = new URL(location, current);
      } catch {
        throw new FetchFailure("invalid_redirect", "redirect to an invalid URL", current);
      }
      if (next.protocol !== "http:" && next.protocol !== "https:") {
        throw new FetchFailure("invalid_redirect", `redirect to a ${next.protocol} URL`, current);
      }
      if (next.username || next.password) {
        throw new FetchFailure("invalid_redirect", "redirect to a URL with credentials", current);
      }
      if (result.status === 303 || ((result.status === 301 || result.status === 302) && method === "POST")) {
        method = "GET";
        body = undefined;
      }
      next.hash = "";
      current = next.toString();
    }
  }

  /**
   * A server that sends a body after its HEAD answer (against RFC 9110; undici closes
   * HTTP/1.1 connections after a HEAD for fear of them) garbles the next answer on that
   * connection. HEADs keep their connection until that is seen; then they close it again,
   * and a request an earlier HEAD garbled is asked again — each garbled answer ends its
   * connection, and at most one HEAD per connection was in flight, so a few tries suffice.
   */
  private headKeepsConnection = true;
  private keptHeadConnection = false;

  private async fetchOnce(
    url: string,
    method: string,
    body: string | undefined,
    options: FetchOptions,
  ): Promise<Omit<FetchResult, "redirects">> {
    for (let tries = 1; ; tries++) {
      try {
        return await this.exchange(url, method, body, options);
      } catch (error) {
        const garbled =
          error instanceof FetchFailure && error.kind === "protocol" && !error.message.includes("decompressed");
        if (!garbled || !this.keptHeadConnection || method === "POST" || tries > MAX_CONNECTIONS_PER_SITE) throw error;
        this.headKeepsConnection = false;
      }
    }
  }

  private async exchange(
    url: string,
    method: string,
    body: string | undefined,
    options: FetchOptions,
  ): Promise<Omit<FetchResult, "redirects">> {
    if (this.bytesRead >= this.limits.maxTotalBytes) {
      throw new FetchFailure(
        "budget",
        `not fetched: the analysis already read its budget of ${this.limits.maxTotalBytes} bytes`,
        url,
      );
    }
    await this.acquire(options.urgent === true);
    let answered = () => {};
    try {
      if (this.paceWindow) answered = await this.paceWindow.take();
    } catch (error) {
      this.release();
      throw classify(error, url, this.deadline.aborted);
    }
    const started = performance.now();
    const row: TimingRow = { url, method, status: null, bytes: 0, transfer_bytes: null, ttfb_ms: null, ms: 0 };
    this.timings.push(row);
    const timeout = AbortSignal.timeout(options.timeoutMs ?? this.limits.requestTimeoutMs);
    const signal = AbortSignal.any([this.deadline, timeout]);
    try {
      const parsed = new URL(url);
      this.assertLiteralAddress(parsed);

      // Written again if undici retries it on another connection: the last time counts.
      let sentAt = started;
      const response = await request(url, {
        method: method as "GET",
        dispatcher: this.dispatcher,
        ...whenSent(() => {
          sentAt = performance.now();
        }),
        signal,
        headers: {
          "user-agent": this.userAgent,
          accept: method === "GET" ? "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" : "*/*",
          "accept-encoding": "gzip, deflate, br",
          ...options.headers,
          ...(this.credentials && parsed.origin === this.credentials.origin ? this.credentials.headers : {}),
        },
        body,
        ...(options.idempotent ? { idempotent: true } : {}),
        // undici closes an HTTP/1.1 connection after every HEAD unless told otherwise (in case
        // the server sends a body anyway, nodejs/undici#258). Servers do not (nginx, Apache,
        // LiteSpeed, Caddy and PHP behind them drop it), and a new connection per HEAD costs a
        // handshake each: the connection is kept, until a garbled answer says this server
        // does (fetchOnce; docs/decisions.md, "Remote sites").
        ...(method === "HEAD" && this.keepHeadConnection() ? { reset: false } : {}),
      });
      // The site has seen the request: the pace counts from here (pace-window.ts).
      answered();
      const firstByteAt = performance.now();
      const ttfbMs = firstByteAt - started;
      const sentTtfbMs = firstByteAt - sentAt;
      row.status = response.statusCode;
      row.ttfb_ms = round(ttfbMs);
      const headers = new Headers();
      const setCookies: string[] = [];
      for (const [name, value] of Object.entries(response.headers)) {
        if (value === undefined) continue;
        for (const item of Array.isArray(value) ? value : [value]) {
          if (name === "set-cookie") setCookies.push(item);
          else headers.append(name, item);
        }
      }
      const length = Number(headers.get("content-length"));
      row.transfer_bytes = Number.isFinite(length) && headers.has("content-length") ? length : null;
      const encoding = headers.get("content-encoding")?.trim().toLowerCase() || null;
      const remaining = Math.max(0, this.limits.maxTotalBytes - this.bytesRead);
      const cap = Math.min(options.maxBodyBytes ?? this.limits.maxBodyBytes, this.limits.maxBodyBytes, remaining);
      const skipBody = method === "HEAD" || options.discardBody === true;
      const { data, truncated } = skipBody
        ? { data: Buffer.alloc(0), truncated: false }
        : await readCapped(response.body, encoding, cap);
      // Read what is left off the wire (up to a small limit) so the connection can be reused;
      // destroying the stream would close the socket and cost a new connection next time.
      if (skipBody) await response.body.dump({ limit: DUMP_LIMIT, signal }).catch(() => discard(response.body));
      this.bytesRead += data.byteLength;
      row.bytes = data.byteLength;
      row.ms = round(performance.now() - started);
      const httpVersion = negotiatedHttpVersion(this.agent, parsed.origin);
      if (httpVersion === "2" && !this.multiplexed) {
        this.multiplexed = true;
        this.admitWaiting();
      }
      return {
        url,
        status: response.statusCode,
        headers,
        setCookies,
        body: data,
        truncated,
        ttfbMs,
        sentTtfbMs,
        totalMs: performance.now() - started,
        encoding,
        httpVersion,
      };
    } catch (error) {
      const failure = classify(error, url, this.deadline.aborted);
      row.ms = round(performance.now() - started);
      row.error = failure.kind;
      throw failure;
    } finally {
      answered();
      this.release();
    }
  }

  /** Origins (scheme, IP literal, port) the policy let through: it does not change during an analysis. */
  private readonly allowedLiterals = new Set<string>();

  /**
   * An IP literal never reaches the agent's DNS lookup, where names are checked: it is checked
   * here, before each request (once per origin: the answer cannot change). A name passes here.
   */
  private assertLiteralAddress(url: URL): void {
    if (this.allowedLiterals.has(url.origin)) return;
    const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
    if (!ipaddr.isValid(host)) return;
    this.policy.assertAddress(host, portOf(url));
    this.allowedLiterals.add(url.origin);
  }

  /** How long to wait before asking a 429 again, or undefined when it is not asked again. */
  private rateLimitWait(header: string | null): number | undefined {
    if (this.rateLimitRetries >= RATE_LIMIT_RETRIES) return undefined;
    const wait = retryAfterMs(header ?? undefined) ?? RATE_LIMIT_DEFAULT_WAIT_MS;
    return wait <= RATE_LIMIT_MAX_WAIT_MS ? wait : undefined;
  }

  /** Whether this HEAD may keep its connection (and then notes that one did). */
  private keepHeadConnection(): boolean {
    if (this.headKeepsConnection) this.keptHeadConnection = true;
    return this.headKeepsConnection;
  }

  private get inFlightLimit(): number {
    return this.multiplexed
      ? Math.max(this.limits.concurrency, this.limits.multiplexedConcurrency ?? H2_STREAMS_PER_CONNECTION)
      : this.limits.concurrency;
  }

  private acquire(urgent: boolean): Promise<void> {
    if (this.active < this.inFlightLimit) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve) => (urgent ? this.urgentWaiting : this.waiting).push(() => resolve()));
  }

  private release() {
    this.active--;
    this.admitWaiting();
  }

  /** Lets waiting requests go, urgent ones first, while there is room. */
  private admitWaiting() {
    while (this.active < this.inFlightLimit) {
      const next = this.urgentWaiting.shift() ?? this.waiting.shift();
      if (!next) return;
      this.active++;
      next();
    }
  }
}

/**
 * Reads at most `cap` decoded bytes, then stops reading (and drops the connection).
 *
 * A compressed body is read whole while it stays within `cap` encoded bytes and decoded at
 * once (DECODE_AT_ONCE), capped at `cap` decoded bytes: a zlib stream per response cost more
 * of the analyzer's CPU than the decoding itself (bench:analyze). A body that decodes past the
 * cap, does not decode cleanly, or is longer than the cap as sent is decoded as a stream
 * instead, which keeps what decoded up to the cap or the damage.
 */
async function readCapped(
  body: Readable,
  encoding: string | null,
  cap: number,
): Promise<{ data: Buffer; truncated: boolean }> {
  const decoder = encoding && encoding !== "identity" ? DECODERS[encoding] : undefined;
  if (!decoder) return readStream(body, body, cap);
  const decoding = (from: Readable) => from.pipe(decoder() as unknown as NodeJS.WritableStream & Readable);
  const decodeAtOnce = DECODE_AT_ONCE[encoding as string];
  // (A cap of 0 keeps nothing: the stream's loop says so as it always did.)
  if (!decodeAtOnce || cap <= 0) return readStream(body, decoding(body), cap);
  const chunks: Buffer[] = [];
  let sent = 0;
  const iterator = body[Symbol.asyncIterator]();
  for (;;) {
    const next = await iterator.next();
    if (next.done) break;
    const chunk = next.value as Buffer;
    chunks.push(chunk);
    sent += chunk.byteLength;
    if (sent > cap) {
      // Longer than the cap as sent: decoded as it comes, so that reading stops at the cap.
      const rest = Readable.from(concatenated(chunks, iterator), { objectMode: false });
      return readStream(body, decoding(rest), cap, rest);
    }
  }
  const whole = Buffer.concat(chunks, sent);
  try {
    return { data: decodeAtOnce(whole, { maxOutputLength: cap }), truncated: false };
  } catch {
    // Past the cap, or damaged: the stream keeps what decodes up to either.
    const rest = Readable.from([whole], { objectMode: false });
    return readStream(rest, decoding(rest), cap);
  }
}

/** The chunks read so far, then the rest of the body. */
async function* concatenated(read: readonly Buffer[], iterator: AsyncIterator<unknown>): AsyncGenerator<Buffer> {
  yield* read;
  for (;;) {
    const next = await iterator.next();
    if (next.done) return;
    yield next.value as Buffer;
  }
}

/**
 * Reads `source` (the body, or its decoder) up to `cap` bytes; at the cap, stops reading
 * `body` (and `feed`, the stream between them when there is one).
 */
async function readStream(
  body: Readable,
  source: Readable,
  cap: number,
  feed?: Readable,
): Promise<{ data: Buffer; truncated: boolean }> {
  if (source !== body) (feed ?? body).on("error", (error) => source.destroy(error));
  const chunks: Buffer[] = [];
  let total = 0;
  let truncated = false;
  try {
    for await (const chunk of source) {
      const buffer = chunk as Buffer;
      if (total + buffer.byteLength > cap) {
        chunks.push(buffer.subarray(0, cap - total));
        total = cap;
        truncated = true;
        break;
      }
      chunks.push(buffer);
      total += buffer.byteLength;
    }
  } catch (error) {
    // A broken compressed stream after some good bytes: keep what decoded cleanly.
    if (total === 0 || !(error instanceof Error) || !("code" in error) || !String(error.code).startsWith("Z_")) {
      throw error;
    }
    truncated = true;
  } finally {
    if (truncated) {
      discard(body);
      discard(source);
      if (feed) discard(feed);
    }
  }
  return { data: Buffer.concat(chunks, total), truncated };
}

/**
 * Stops reading a stream we no longer want. Destroying it makes it emit an AbortError;
 * without a listener that error would be thrown as uncaught and take the process down.
 */
function discard(stream: Readable): void {
  stream.on("error", () => {});
  stream.destroy();
}

function classify(error: unknown, url: string, deadlinePassed: boolean): FetchFailure {
  if (error instanceof FetchFailure) return error;
  if (error instanceof TargetBlockedError) return new FetchFailure("blocked", error.message, url);
  const cause = (error as { cause?: unknown })?.cause;
  if (cause instanceof TargetBlockedError) return new FetchFailure("blocked", cause.message, url);
  const code = String((error as { code?: string })?.code ?? (cause as { code?: string })?.code ?? "");
  const name = (error as Error)?.name ?? "";
  if (deadlinePassed) return new FetchFailure("aborted", "the analysis deadline passed", url);
  if (name === "AbortError" || name === "TimeoutError" || code.includes("TIMEOUT") || code === "ETIMEDOUT") {
    return new FetchFailure("timeout", "the request timed out", url);
  }
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "EAI_NONAME" || code === "ENODATA") {
    return new FetchFailure("dns", "the host name does not resolve", url);
  }
  if (
    code === "ECONNREFUSED" ||
    code === "ECONNRESET" ||
    code === "EHOSTUNREACH" ||
    code === "ENETUNREACH" ||
    code === "UND_ERR_SOCKET"
  ) {
    return new FetchFailure("refused", "the connection was refused or reset", url);
  }
  const certificate = CERTIFICATE_ERRORS[code];
  if (certificate) return new FetchFailure("tls", `its TLS certificate could not be verified: ${certificate}`, url);
  if (
    code.startsWith("ERR_TLS") ||
    code.includes("CERT") ||
    code.startsWith("ERR_SSL") ||
    /ssl|tls|certificate/i.test((error as Error)?.message ?? "")
  ) {
    return new FetchFailure("tls", "the TLS handshake failed", url);
  }
  if (code.startsWith("Z_")) return new FetchFailure("protocol", "the response body could not be decompressed", url);
  return new FetchFailure("protocol", `the response could not be read (${code || name || "error"})`, url);
}

/**
 * OpenSSL's verification errors (Node's `code`), as the report words them: the usual reasons a
 * staging site's certificate is refused. Its message says how to analyze it anyway.
 */
const CERTIFICATE_ERRORS: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: "it is self-signed",
  SELF_SIGNED_CERT_IN_CHAIN: "its chain ends in a self-signed certificate that is not a public root",
  UNABLE_TO_GET_ISSUER_CERT: "its issuer is not a public root (a private CA?)",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "its issuer is not a public root (a private CA?)",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "its issuer is not a public root (a private CA?) or the chain is incomplete",
  CERT_HAS_EXPIRED: "it has expired",
  CERT_NOT_YET_VALID: "it is not valid yet",
  ERR_TLS_CERT_ALTNAME_INVALID: "it is not issued for this host name",
  CERT_REVOKED: "it was revoked",
  CERT_UNTRUSTED: "it is not trusted",
};

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

/** Sleeps, or rejects at once when the analysis is aborted. */
function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
