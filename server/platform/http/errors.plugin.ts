/**
 * Maps everything that can go wrong inside Elysia onto problem+json: our own ApiProblem,
 * schema validation, unparseable bodies, unknown routes and unexpected exceptions.
 * Framework error text never reaches a client; unexpected errors are logged with the
 * request id and answered with a generic 500.
 */
import { Elysia } from "elysia";
import { isTransientDbError } from "../db/transient.ts";
import type { Logger } from "../logger.ts";
import { ApiProblem, problemResponse } from "./problem.ts";
import { requestContext } from "./request-context.ts";
import { issueDetail } from "./validation-messages.ts";

interface ValidationIssue {
  path?: string;
  message?: string;
  value?: unknown;
  schema?: unknown;
}

const LOCATIONS: Record<string, string> = {
  body: "body",
  query: "query string",
  params: "path",
  headers: "headers",
};

/** Turns TypeBox's issues into short, stable `{ location, pointer, detail }` entries. */
function describeValidation(error: unknown): { detail: string; errors: Record<string, string>[] } {
  const source = error as { type?: string; all?: ValidationIssue[] };
  const location = LOCATIONS[source.type ?? "body"] ?? "request";
  const seen = new Set<string>();
  const errors: Record<string, string>[] = [];
  for (const issue of source.all ?? []) {
    const pointer = issue.path ?? "";
    if (seen.has(pointer)) continue; // one message per field is enough
    seen.add(pointer);
    let detail = issueDetail(issue);
    if (issue.value === undefined && pointer !== "") detail = "Required";
    errors.push({ location: source.type ?? "body", pointer, detail });
    if (errors.length >= 10) break;
  }
  const first = errors[0];
  const where = first?.pointer ? `${location} field ${first.pointer.slice(1).replaceAll("/", ".")}` : location;
  return {
    detail: first ? `Invalid ${where}: ${first.detail}.` : `The ${location} does not match the expected schema.`,
    errors,
  };
}

/** Extra members (additionalProperties:false) show up as a validation error at the root. */
function describeExtraProperties(error: unknown): string | undefined {
  const source = error as { value?: unknown; validator?: { Schema?: () => { properties?: object } } };
  const value = source.value;
  const schema = source.validator?.Schema?.();
  if (!value || typeof value !== "object" || Array.isArray(value) || !schema?.properties) return;
  const known = new Set(Object.keys(schema.properties));
  const extra = Object.keys(value).filter((key) => !known.has(key));
  if (extra.length === 0) return;
  return `Unknown field${extra.length > 1 ? "s" : ""}: ${extra
    .slice(0, 5)
    .map((k) => JSON.stringify(k.slice(0, 40)))
    .join(", ")}. Allowed: ${[...known].join(", ")}.`;
}

/** Renders a problem as an HTML page for browsers (the web interface), or undefined to answer JSON. */
export type HtmlErrorRenderer = (
  problem: ApiProblem,
  request: Request,
) => Promise<Response | undefined> | Response | undefined;

function wantsHtml(request: Request): boolean {
  const path = new URL(request.url).pathname;
  return !path.startsWith("/api/") && (request.headers.get("accept") ?? "").includes("text/html");
}

/** The answer to a request that met a transient database error (platform/db/transient.ts). */
export function unavailableProblem(): ApiProblem {
  return new ApiProblem("unavailable", "The service cannot reach its database right now. Retry shortly.", {
    headers: { "retry-after": "5" },
    extensions: { retry_after: 5 },
  });
}

export function errorsPlugin(options: {
  baseUrl: string;
  logger: Logger;
  renderHtml?: HtmlErrorRenderer;
  /** Errors another (scoped) handler answers, e.g. the web interface's own error pages. */
  passThrough?: (error: unknown) => boolean;
  /** The methods a path answers (see route-table.ts): an unrouted request there is a 405, not a 404. */
  allowedMethods?: (pathname: string) => string[] | undefined;
}) {
  return new Elysia({ name: "errors" }).onError({ as: "global" }, async ({ code, error, request }) => {
    if (options.passThrough?.(error)) return undefined;
    const context = requestContext(request);
    const respond = async (problem: ApiProblem) => {
      if (options.renderHtml && wantsHtml(request)) {
        const html = await options.renderHtml(problem, request);
        if (html) {
          // The page says it in words; Allow, Retry-After… must still be in the headers.
          for (const [name, value] of Object.entries(problem.options.headers ?? {})) html.headers.set(name, value);
          return html;
        }
      }
      return problemResponse(problem, options.baseUrl, context.id);
    };

    if (error instanceof ApiProblem) return respond(error);
    switch (code) {
      case "VALIDATION": {
        const extra = describeExtraProperties(error);
        const { detail, errors } = describeValidation(error);
        return respond(new ApiProblem("invalid_request", extra ?? detail, { extensions: { errors } }));
      }
      case "PARSE":
        return respond(new ApiProblem("invalid_request", "The request body could not be parsed."));
      case "NOT_FOUND": {
        const pathname = new URL(request.url).pathname;
        const path = pathname.slice(0, 200);
        const allowed = options.allowedMethods?.(pathname);
        if (allowed?.length) {
          const method = request.method.slice(0, 20);
          return respond(
            new ApiProblem(
              "method_not_allowed",
              `${method} is not allowed on ${path}; allowed: ${allowed.join(", ")}.`,
              {
                headers: { allow: allowed.join(", ") },
                extensions: { allowed_methods: allowed },
              },
            ),
          );
        }
        return respond(new ApiProblem("not_found", `Nothing at ${request.method} ${path}.`));
      }
      case "INVALID_COOKIE_SIGNATURE":
      case "INVALID_FILE_TYPE":
        return respond(new ApiProblem("invalid_request", "The request is not valid."));
      default:
        if (isTransientDbError(error)) {
          // Dropped connections, a database restarting, a lock held past lock_timeout: the
          // client gets a problem it can act on (retry), never a closed connection.
          options.logger.warn("database unavailable", {
            request_id: context.id,
            route: context.route,
            code: (error as { code?: string }).code,
          });
          return respond(unavailableProblem());
        }
        options.logger.error("unhandled error", {
          request_id: context.id,
          route: context.route,
          error:
            error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error),
        });
        return respond(
          new ApiProblem(
            "internal_error",
            "Something went wrong on our side. The request id identifies it in our logs.",
          ),
        );
    }
  });
}
