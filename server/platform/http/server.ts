/**
 * The HTTP entry point: Bun.serve around the Elysia app.
 *
 * This thin wrapper owns what must hold for *every* response, whatever happened inside
 * the app: an X-Request-Id header, headers queued by the app (rate-limit headers on
 * errors too), an early 413 for declared oversize bodies, OPTIONS and CORS preflights
 * (answered here, before any token check or rate-limit count), CORS headers on /api,
 * compression and If-None-Match (representation.ts), and one JSON log line.
 */
import type { Server } from "bun";
import { isTransientDbError } from "../db/transient.ts";
import type { Logger } from "../logger.ts";
import { routableRequest } from "./client-request.ts";
import { CORS_RESPONSE_HEADERS, isCorsPath, isPreflight, preflightHeaders } from "./cors.ts";
import { unavailableProblem } from "./errors.plugin.ts";
import { ApiProblem, problemResponse } from "./problem.ts";
import { finishRepresentation } from "./representation.ts";
import { beginRequest, type RequestContext } from "./request-context.ts";
import type { RouteMatch } from "./route-table.ts";

export interface HttpServerOptions {
  port: number;
  host: string;
  baseUrl: string;
  maxBodyBytes: number;
  /** Paths whose bodies may be larger than maxBodyBytes (a form with a file), and their limit. */
  bodyLimits?: Record<string, number>;
  logger: Logger;
  handle: (request: Request) => Promise<Response> | Response;
  /** The app's routes at a path (route-table.ts); without it, OPTIONS goes to `handle` like any method. */
  routes?: (pathname: string) => RouteMatch | undefined;
  /**
   * Seconds a request may go without a byte either way before Bun closes it (Bun's default is
   * 10 s, which cut off answers that waited on a locked table: they must get a problem).
   */
  idleTimeoutSeconds?: number;
  /** A longer idle timeout for requests that wait by design (synchronous report generation); 0 = none. */
  waitingRequestSeconds?: (method: string, pathname: string) => number | undefined;
}

/** Bun's default idle timeout is 10 s; requests wait for the database longer than that at worst. */
export const IDLE_TIMEOUT_SECONDS = 30;
/** The largest idle timeout Bun accepts; longer waits disable it and rely on their own deadline. */
const MAX_IDLE_TIMEOUT_SECONDS = 255;

export interface HttpServer {
  server: Server<undefined>;
  url: string;
  /** Stops accepting connections and waits for in-flight requests to finish. */
  stop(): Promise<void>;
}

export function startHttpServer(options: HttpServerOptions): HttpServer {
  const { logger, baseUrl, maxBodyBytes } = options;

  async function fetch(received: Request, server: Server<undefined>): Promise<Response> {
    // The peer is known only to Bun.serve, and only for the Request it made.
    const peer = server.requestIP(received)?.address;
    const request = routableRequest(received);
    const context = beginRequest(request, peer);
    let response: Response;
    const pathname = new URL(request.url).pathname;
    const waits = options.waitingRequestSeconds?.(request.method, pathname);
    if (waits !== undefined) server.timeout(received, waits > MAX_IDLE_TIMEOUT_SECONDS ? 0 : waits);
    const declared = Number(request.headers.get("content-length") ?? "0");
    const bodyLimit = Math.max(maxBodyBytes, options.bodyLimits?.[pathname] ?? 0);
    const answered = request.method === "OPTIONS" ? optionsResponse(request, pathname, context) : undefined;
    if (answered) {
      response = answered;
    } else if (declared > bodyLimit) {
      response = problemResponse(
        new ApiProblem("payload_too_large", `The request body must not exceed ${bodyLimit} bytes.`, {
          extensions: { max_bytes: bodyLimit },
        }),
        baseUrl,
        context.id,
      );
    } else {
      try {
        response = await options.handle(request);
      } catch (error) {
        logger.error("request failed outside the app", { request_id: context.id, error });
        response = problemResponse(
          isTransientDbError(error)
            ? unavailableProblem()
            : new ApiProblem("internal_error", "Something went wrong on our side."),
          baseUrl,
          context.id,
        );
      }
    }
    // nosniff on everything: an API answer must never be sniffed into something executable.
    const always = {
      "x-content-type-options": "nosniff",
      ...context.responseHeaders,
      ...(isCorsPath(pathname) ? CORS_RESPONSE_HEADERS : {}),
      "x-request-id": context.id,
    };
    // withHeaders first: it also makes the headers writable for finishRepresentation.
    response = withHeaders(response, always);
    try {
      response = await finishRepresentation(request, response);
    } catch (error) {
      // A body that could not be read or compressed: an error the client sees, not a hang.
      logger.error("response could not be finished", { request_id: context.id, error });
      response = withHeaders(
        problemResponse(new ApiProblem("internal_error", "Something went wrong on our side."), baseUrl, context.id),
        always,
      );
    }
    logger.info("request", {
      request_id: context.id,
      method: request.method,
      route: context.route ?? "(unmatched)",
      status: response.status,
      duration_ms: Math.round((performance.now() - context.startedAt) * 100) / 100,
      account_id: context.accountId,
    });
    return response;
  }

  /**
   * OPTIONS on a path the app has a route for: 204 with Allow, and for /api a CORS preflight's
   * answer. Unknown paths are left to the app (404).
   */
  function optionsResponse(request: Request, pathname: string, context: RequestContext): Response | undefined {
    const match = options.routes?.(pathname);
    if (!match) return undefined;
    context.route = match.route;
    const headers: Record<string, string> = { allow: match.methods.join(", "), "cache-control": "no-store" };
    if (isCorsPath(pathname) && isPreflight(request)) Object.assign(headers, preflightHeaders(match.methods));
    return new Response(null, { status: 204, headers });
  }

  const server = Bun.serve({
    port: options.port,
    hostname: options.host,
    idleTimeout: options.idleTimeoutSeconds ?? IDLE_TIMEOUT_SECONDS,
    // Backstop only: the JSON reader enforces maxBodyBytes with a proper problem+json.
    maxRequestBodySize: Math.max(maxBodyBytes * 4, 1024 * 1024, ...Object.values(options.bodyLimits ?? {})),
    fetch,
    error(error) {
      logger.error("server error", { error });
      return new Response("Internal Server Error", { status: 500 });
    },
  });

  return {
    server,
    url: `http://${options.host === "0.0.0.0" ? "127.0.0.1" : options.host}:${server.port}`,
    async stop() {
      await server.stop(false);
    },
  };
}

function withHeaders(response: Response, headers: Record<string, string>): Response {
  try {
    for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
    return response;
  } catch {
    // Immutable headers (e.g. a Response from fetch): copy into a new Response.
    const copy = new Response(response.body, response);
    for (const [name, value] of Object.entries(headers)) copy.headers.set(name, value);
    return copy;
  }
}
