/**
 * The last step of every response, in the Bun.serve wrapper (server.ts): content coding
 * (br or gzip, per the request's Accept-Encoding) and conditional GET (If-None-Match → 304).
 * Routes only say what they send; how it travels is decided here, once, for all of them.
 *
 * - Compressed: text types, JSON and every `+json`/`+xml` type, SVG — when the body is at
 *   least COMPRESS_MIN_BYTES, the status carries content (not 204/206/304), the response is
 *   not already encoded and does not say `Cache-Control: no-transform`. HEAD is never
 *   compressed (there is no body). Compressible responses say `Vary: Accept-Encoding`.
 * - Such bodies are read whole before they leave. No route streams today; one that must
 *   should send `Cache-Control: no-transform` (or a type that is not compressible).
 * - A strong ETag names exact bytes, so a compressed body gets its own: `"<tag>-br"` or
 *   `"<tag>-gzip"`. If-None-Match is compared with the ETag that would be sent (weak
 *   comparison, RFC 9110 §13.1.2), so a 304 is right whichever coding the client holds.
 * - br at quality 5 and gzip at level 6, on zlib's thread pool: on a 58 KB report, ~15 KB in
 *   about 1.5 ms (quality 11 would save 10 % more for ~50× the time; docs/decisions.md).
 * - A response with a strong ETag is one clients fetch again (a finished report, polled or
 *   re-read): its coded body is kept in a small LRU cache, so it is compressed once, not on
 *   every request. The key is the URL (path and query), the strong ETag and the coding: a
 *   strong ETag names one representation of a resource (RFC 9110 §8.8.3; ours are hashes of
 *   the bytes).
 */
import { promisify } from "node:util";
import zlib from "node:zlib";
import fresh from "fresh";
import { LRUCache } from "lru-cache";
import Negotiator from "negotiator";
import { entityTag } from "./etag.ts";

export const COMPRESS_MIN_BYTES = 1024;

/** Coded bodies of responses with a strong ETag, by URL + ETag + coding (at most 16 MB). */
const codedBodies = new LRUCache<string, Uint8Array<ArrayBuffer>>({
  maxSize: 16 * 1024 * 1024,
  sizeCalculation: (body) => Math.max(1, body.length),
});

const CODINGS = ["br", "gzip", "identity"] as const;
type Coding = (typeof CODINGS)[number];

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

const COMPRESSIBLE = /^\s*(text\/[^;]+|application\/(json|javascript|xml|[^;]*\+(json|xml))|image\/svg\+xml)\s*(;|$)/i;

export function isCompressibleType(contentType: string | null): boolean {
  return contentType !== null && COMPRESSIBLE.test(contentType);
}

/** The coding to send for this request: the client's Accept-Encoding, ties going to br, then gzip. */
export function negotiateCoding(request: Request): Coding {
  const header = request.headers.get("accept-encoding");
  if (!header) return "identity"; // nothing said: send what every client reads
  const negotiator = new Negotiator({ headers: { "accept-encoding": header } });
  // @types/negotiator predates the `preferred` option (negotiator ≥ 1.0).
  const encoding = negotiator.encoding as (
    available: readonly string[],
    options: { preferred: readonly string[] },
  ) => string | undefined;
  const chosen = encoding.call(negotiator, CODINGS, { preferred: CODINGS });
  // Nothing acceptable (e.g. `identity;q=0` and no coding we have): identity still beats an error.
  return (chosen as Coding | undefined) ?? "identity";
}

function compress(bytes: Uint8Array, coding: Exclude<Coding, "identity">): Promise<Uint8Array<ArrayBuffer>> {
  if (coding === "gzip") return gzip(bytes, { level: 6 });
  // A window no larger than the body: brotli's default (4 MiB) is allocated on every call.
  const window = Math.min(zlib.constants.BROTLI_DEFAULT_WINDOW, Math.max(16, Math.ceil(Math.log2(bytes.length))));
  return brotli(bytes, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: 5,
      [zlib.constants.BROTLI_PARAM_LGWIN]: window,
      [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  });
}

/** The coded body, from the cache when the response has a strong ETag. */
async function codedBody(
  request: Request,
  etag: string | null,
  bytes: Uint8Array,
  coding: Exclude<Coding, "identity">,
): Promise<Uint8Array<ArrayBuffer>> {
  if (!etag || etag.startsWith("W/")) return compress(bytes, coding);
  const url = new URL(request.url);
  const key = `${url.pathname}${url.search} ${etag} ${coding}`;
  const cached = codedBodies.get(key);
  if (cached) return cached;
  const coded = await compress(bytes, coding);
  codedBodies.set(key, coded);
  return coded;
}

/** Adds a token to Vary unless it (or `*`) is already there. */
export function appendVary(headers: Headers, token: string): void {
  const current = headers.get("vary");
  if (!current) {
    headers.set("vary", token);
    return;
  }
  const listed = current.split(",").map((entry) => entry.trim().toLowerCase());
  if (listed.includes("*") || listed.includes(token.toLowerCase())) return;
  headers.set("vary", `${current}, ${token}`);
}

/** The strong ETag of a coded body: its own tag, since its bytes differ (RFC 9110 §8.8.3). */
function codedEtag(etag: string, coding: Coding): string {
  if (coding === "identity" || etag.startsWith("W/") || !etag.endsWith('"')) return etag;
  return `${etag.slice(0, -1)}-${coding}"`;
}

/** Headers a 304 keeps: everything but the body's own metadata (RFC 9110 §15.4.5). */
const NOT_IN_304 = ["content-type", "content-length", "content-encoding", "content-disposition"];

function notModified(response: Response): Response {
  const headers = new Headers(response.headers);
  for (const name of NOT_IN_304) headers.delete(name);
  return new Response(null, { status: 304, headers });
}

function isFresh(request: Request, etag: string): boolean {
  return fresh(
    {
      "if-none-match": request.headers.get("if-none-match") ?? undefined,
      "cache-control": request.headers.get("cache-control") ?? undefined,
    },
    { etag },
  );
}

const JSON_TYPE = /^\s*application\/(json|[^;]*\+json)\s*(;|$)/i;

/**
 * Whether a response gets a weak ETag from its content: a 200 GET of JSON with a body, that
 * has no tag of its own and is not marked no-store (a queued report changes under the client).
 */
function wantsWeakTag(method: string, status: number, headers: Headers, hasBody: boolean): boolean {
  return (
    method === "GET" &&
    status === 200 &&
    hasBody &&
    !headers.has("content-encoding") &&
    JSON_TYPE.test(headers.get("content-type") ?? "") &&
    !/\bno-store\b/i.test(headers.get("cache-control") ?? "")
  );
}

/** The response as it should leave: coded for this client, or a 304 if the client has it. */
export async function finishRepresentation(request: Request, response: Response): Promise<Response> {
  const { status, headers } = response;
  const method = request.method;
  const compressible =
    response.body !== null &&
    status >= 200 &&
    status !== 204 &&
    status !== 206 &&
    status !== 304 &&
    !headers.has("content-encoding") &&
    !/\bno-transform\b/i.test(headers.get("cache-control") ?? "") &&
    isCompressibleType(headers.get("content-type"));
  // HEAD's body is null (Elysia drops it); its headers still say the GET would vary.
  if (compressible || (method === "HEAD" && isCompressibleType(headers.get("content-type")))) {
    appendVary(headers, "Accept-Encoding");
  }

  let coding: Coding = compressible ? negotiateCoding(request) : "identity";
  let bytes: Uint8Array<ArrayBuffer> | undefined;
  if (coding !== "identity") {
    bytes = await response.bytes();
    if (bytes.length < COMPRESS_MIN_BYTES) coding = "identity";
  }

  let etag = headers.get("etag");
  if (!etag && wantsWeakTag(method, status, headers, response.body !== null)) {
    // Every JSON document or list a GET returns carries a validator, so clients that poll or
    // cache it (the OpenAPI document, the schemas, /api/reports, /api/sites, a diff) can ask
    // If-None-Match and get a 304. Weak: it names the JSON's content, the same whichever coding
    // carries it; the routes whose bytes a client keeps (a finished report) set a strong one.
    bytes ??= await response.bytes();
    etag = `W/${entityTag(bytes)}`;
    headers.set("etag", etag);
  }
  if (etag && coding !== "identity") headers.set("etag", codedEtag(etag, coding));
  if (etag && status === 200 && (method === "GET" || method === "HEAD") && request.headers.has("if-none-match")) {
    if (isFresh(request, headers.get("etag") ?? etag)) {
      // The body is not sent: release it without reading it.
      if (!bytes) await response.body?.cancel();
      return notModified(response);
    }
  }

  if (!bytes) return response;
  const init = { status, statusText: response.statusText, headers };
  if (coding === "identity") return new Response(bytes, init);
  const coded = await codedBody(request, etag, bytes, coding);
  headers.set("content-encoding", coding);
  headers.delete("content-length");
  return new Response(coded, init);
}
