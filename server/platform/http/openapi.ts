/**
 * The OpenAPI 3.1 document (GET /api/openapi.json), written from the operations each feature
 * declares next to its routes (`*Operations` in server/<feature>/*.routes.ts). The routes take
 * their params/query/body schemas from those same declarations, so the document cannot
 * describe a request the route would refuse; a test compares the document's paths with the
 * app's route table (test/api/openapi.test.ts) and lints it with Redocly.
 *
 * Conventions applied to every operation, so no route has to repeat them:
 * - errors are `application/problem+json` (`Problem`), each status listing its codes;
 * - every response has `X-Request-Id`; every response of an authenticated route after the
 *   token check has the rate-limit headers; 401 has `WWW-Authenticate`; 429 and 503 have
 *   `Retry-After`;
 * - authenticated routes answer `unauthorized`, `rate_limited` and `unavailable` too, and
 *   every route `payload_too_large` (a declared body over the limit is refused before routing).
 *
 * (@elysiajs/openapi, used before, documented every body as JSON, form and multipart, every
 * error as application/json, no response headers and no named schemas.)
 */

/** OpenAPI objects are written as plain JSON; Redocly's lint (in the tests) checks their shape. */
type OpenApiObject = { [field: string]: unknown };

import type { TObject, TSchema } from "@sinclair/typebox";
import { ProblemSchema } from "../../../shared/api.ts";
import { PROBLEM_CONTENT_TYPE, PROBLEMS, type ProblemCode } from "../../../shared/problems.ts";
import { type JsonSchema, JsonSchemaWriter } from "./json-schema.ts";

/** The response headers the API sends, each described once (`components.headers`). */
export const RESPONSE_HEADERS = {
  "X-Request-Id": {
    description:
      "Identifies the request in the service's logs (your own X-Request-Id is kept when it is 8–64 plain characters)",
    schema: { type: "string" },
  },
  "RateLimit-Policy": {
    description: 'The rate limit that applies (IETF draft): `"default";q=<requests>;w=<window seconds>`',
    schema: { type: "string" },
  },
  RateLimit: {
    description: 'What is left of it (IETF draft): `"default";r=<remaining>;t=<seconds until reset>`',
    schema: { type: "string" },
  },
  "X-RateLimit-Limit": { description: "Requests allowed per window", schema: { type: "integer", minimum: 0 } },
  "X-RateLimit-Remaining": { description: "Requests left in this window", schema: { type: "integer", minimum: 0 } },
  "X-RateLimit-Reset": {
    description: "When the window resets, Unix time in seconds",
    schema: { type: "integer", minimum: 0 },
  },
  "Retry-After": { description: "Seconds to wait before retrying", schema: { type: "integer", minimum: 0 } },
  Location: {
    description: "Absolute URL of what the request made: the report, the webhook, the delivery",
    schema: { type: "string", format: "uri" },
  },
  "Idempotent-Replayed": {
    description: "Present when the answer is the stored result of an earlier request with this Idempotency-Key",
    schema: { type: "string", enum: ["true"] },
  },
  "Preference-Applied": {
    description: "respond-async when the report was queued because of Prefer: respond-async",
    schema: { type: "string", enum: ["respond-async"] },
  },
  "Queue-Position": {
    description: "For a queued report: its place in the queue, 1 = next",
    schema: { type: "integer", minimum: 1 },
  },
  ETag: {
    description:
      "Strong validator of a finished report's representation (JSON or SARIF, each encoding its own); send it back in If-None-Match to get 304",
    schema: { type: "string" },
  },
  Link: { description: 'The next page: `<url>; rel="next"` (RFC 8288)', schema: { type: "string" } },
  "WWW-Authenticate": {
    description:
      'The authentication scheme (RFC 6750): `Bearer realm="wpreport"`, with `error="invalid_token"` when the request sent a token that is not valid',
    schema: { type: "string" },
  },
} as const satisfies Record<string, { description: string; schema: JsonSchema }>;

export type ResponseHeader = keyof typeof RESPONSE_HEADERS;

const RATE_LIMIT_HEADERS: ResponseHeader[] = [
  "RateLimit-Policy",
  "RateLimit",
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
];

export interface ApiResponse {
  description: string;
  /** Media type → schema of the body. */
  content?: Record<string, TSchema>;
  headers?: ResponseHeader[];
}

export interface ApiOperation {
  method: "get" | "post" | "put" | "patch" | "delete";
  /** As routed, e.g. `/api/report/:report_id`. */
  path: string;
  operationId: string;
  summary: string;
  description: string;
  tag: ApiTag;
  /** "bearer": an API token is required (and the call is rate limited); "none": public. */
  auth: "bearer" | "none";
  params?: TObject;
  query?: TObject;
  /** Request headers the operation reads. */
  headers?: TObject;
  /** A JSON request body. */
  body?: TSchema;
  /** The successful answers, by status. */
  responses: Record<number, ApiResponse>;
  /** The problem codes this operation can answer (authenticated ones add unauthorized, rate_limited, unavailable). */
  errors: ProblemCode[];
}

export const API_TAGS = {
  Reports: "Generate reports, read them (JSON or SARIF), list them and compare two",
  Portfolio: "Your sites with their grades and trends, which sites run a component, and monthly client reports",
  Account: "Your plan, quota and rate limit",
  Monitors: "Scheduled audits of your sites, judged against their baseline like the Action's runs",
  Webhooks: "Signed deliveries of events to your endpoints: subscribe, test, rotate secrets, read the delivery log",
  Schema: "Machine-readable descriptions of the API and the report",
  Operations: "Liveness and readiness probes for load balancers and orchestrators",
} as const;
export type ApiTag = keyof typeof API_TAGS;

const AUTHENTICATED_ERRORS: ProblemCode[] = ["unauthorized", "rate_limited", "unavailable"];
/** Any request that declares a body over MAX_BODY_BYTES is refused before routing (server/platform/http/server.ts). */
const EVERY_ROUTE_ERRORS: ProblemCode[] = ["payload_too_large"];

export interface OpenApiInfo {
  version: string;
  serverUrl: string;
}

export function openApiDocument(operations: readonly ApiOperation[], info: OpenApiInfo): OpenApiObject {
  const writer = new JsonSchemaWriter("#/components/schemas/");
  const paths: Record<string, Record<string, OpenApiObject>> = {};
  for (const operation of operations) {
    const template = operation.path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
    paths[template] = { ...paths[template], [operation.method]: operationObject(operation, writer) };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "wpreport API",
      version: info.version,
      summary: "In-depth WordPress site reports on demand",
      description:
        "Analyses a WordPress site — core, theme, plugins, performance, SEO, security — and returns a JSON report; compares reports to gate deploys. Every error is RFC 9457 `application/problem+json` with a stable `code`. Authenticated responses carry the rate-limit headers; every response carries `X-Request-Id`. JSON and HTML responses are compressed when the client accepts gzip or br.",
      license: { name: "Proprietary", identifier: "LicenseRef-wpreport-terms" },
    },
    servers: [{ url: info.serverUrl, description: "This wpreport service" }],
    security: [{ bearerAuth: [] }],
    tags: Object.entries(API_TAGS).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description: "An API token (wpr_…), from the dashboard's Tokens page or the admin CLI",
        },
      },
      headers: RESPONSE_HEADERS,
      schemas: writer.collect(),
    },
  };
}

function operationObject(operation: ApiOperation, writer: JsonSchemaWriter): OpenApiObject {
  const parameters: OpenApiObject[] = [
    ...parametersOf(operation.params, "path", writer),
    ...parametersOf(operation.query, "query", writer),
    ...parametersOf(operation.headers, "header", writer),
  ];
  const bearer = operation.auth === "bearer";
  const responses: OpenApiObject = {};
  for (const [status, response] of Object.entries(operation.responses)) {
    const headers = [...(bearer ? RATE_LIMIT_HEADERS : []), ...(response.headers ?? [])];
    responses[status] = {
      description: response.description,
      headers: headerRefs(headers),
      ...(response.content
        ? {
            content: Object.fromEntries(
              Object.entries(response.content).map(([type, schema]) => [type, { schema: writer.ref(schema) }]),
            ),
          }
        : {}),
    };
  }
  const codes = [...operation.errors, ...(bearer ? AUTHENTICATED_ERRORS : []), ...EVERY_ROUTE_ERRORS];
  for (const [status, statusCodes] of groupByStatus(codes)) {
    const headers: ResponseHeader[] = [];
    if (bearer && status !== 401) headers.push(...RATE_LIMIT_HEADERS);
    if (status === 401) headers.push("WWW-Authenticate");
    if (status === 429 || status === 503) headers.push("Retry-After");
    responses[status] = {
      description: statusCodes.map((code) => `\`${code}\`: ${PROBLEMS[code].title}`).join(". "),
      headers: headerRefs(headers),
      content: { [PROBLEM_CONTENT_TYPE]: { schema: writer.ref(ProblemSchema) } },
    };
  }
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    description: operation.description,
    tags: [operation.tag],
    security: bearer ? [{ bearerAuth: [] }] : [],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(operation.body
      ? { requestBody: { required: true, content: { "application/json": { schema: writer.ref(operation.body) } } } }
      : {}),
    responses,
  };
}

/** X-Request-Id first (every response has it), then the rest, each a reference to components.headers. */
function headerRefs(names: ResponseHeader[]): Record<string, OpenApiObject> {
  const all = ["X-Request-Id", ...names.filter((name) => name !== "X-Request-Id")];
  return Object.fromEntries(all.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

function groupByStatus(codes: ProblemCode[]): [number, ProblemCode[]][] {
  const byStatus = new Map<number, ProblemCode[]>();
  for (const code of new Set(codes)) {
    const status = PROBLEMS[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return [...byStatus].sort(([a], [b]) => a - b);
}

/** Each property of an object schema as a parameter; its description moves up to the parameter. */
function parametersOf(
  schema: TObject | undefined,
  location: "path" | "query" | "header",
  writer: JsonSchemaWriter,
): OpenApiObject[] {
  if (!schema) return [];
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([name, property]) => {
    const { description, deprecated, ...rest } = writer.ref(property) as JsonSchema & {
      description?: string;
      deprecated?: boolean;
    };
    return {
      name: location === "header" ? headerName(name) : name,
      in: location,
      required: location === "path" || required.has(name),
      ...(description ? { description } : {}),
      ...(deprecated ? { deprecated } : {}),
      schema: rest,
    };
  });
}

/** Elysia reads request headers lower-cased; the document names them as people write them. */
const headerName = (name: string) =>
  name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase());
