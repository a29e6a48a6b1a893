/**
 * Public, unauthenticated documents: the OpenAPI document, the report JSON Schema, and the
 * pages that problem `type` URIs point to.
 */
import { Type } from "@sinclair/typebox";
import { Elysia, t } from "elysia";
import { API_VERSION } from "../version.ts";
import type { ApiModule } from "./api-module.ts";
import { type ApiOperation, openApiDocument } from "./openapi.ts";
import { PROBLEMS, type ProblemCode } from "./problem.ts";

const JsonDocumentSchema = Type.Object({}, { additionalProperties: true });

const docsOperations: ApiOperation[] = [
  {
    method: "get",
    path: "/api/openapi.json",
    operationId: "getOpenApiDocument",
    summary: "This OpenAPI document",
    description:
      "OpenAPI 3.1; its server is this service's public address (PUBLIC_BASE_URL), or the address the document was asked at.",
    tag: "Schema",
    auth: "none",
    responses: { 200: { description: "The OpenAPI document", content: { "application/json": JsonDocumentSchema } } },
    errors: [],
  },
  {
    method: "get",
    path: "/api/schema/report.json",
    operationId: "getReportSchema",
    summary: "Report JSON Schema",
    description:
      "The report's JSON Schema (draft 2020-12), for validating reports in your own tools; it compiles in Ajv's strict mode.",
    tag: "Schema",
    auth: "none",
    responses: {
      200: { description: "The JSON Schema", content: { "application/schema+json": JsonDocumentSchema } },
    },
    errors: [],
  },
];

/** What the documents need from the app. */
export interface DocsContext {
  /** Every operation of the API, the documents' own included. */
  operations: readonly ApiOperation[];
  /** The `servers` URL for this request (client-request.ts, documentServerUrl). */
  serverUrlFor: (request: Request) => string;
  /** The report's JSON Schema, served at /api/schema/report.json (reports/report-json-schema.ts). */
  reportSchema: object;
}

/** The public documents for app.ts: their operations and routes (with the problem pages, which are not API). */
export const docsApi: ApiModule<DocsContext> = {
  name: "docs",
  operations: docsOperations,
  routes: (context) => docsRoutes({ ...context, version: API_VERSION }),
};

export function docsRoutes(deps: DocsContext & { version: string }) {
  const schemaJson = JSON.stringify(deps.reportSchema);
  // The servers entry follows the address the document was asked at (or PUBLIC_BASE_URL).
  const { servers: _, ...document } = openApiDocument(deps.operations, { version: deps.version, serverUrl: "" });
  return new Elysia()
    .get("/api/openapi.json", ({ request }) => {
      const body = {
        openapi: document.openapi,
        info: document.info,
        servers: [{ url: deps.serverUrlFor(request), description: "This wpreport service" }],
        ...document,
      };
      return new Response(JSON.stringify(body), {
        // The servers entry depends on the Host (and forwarding headers) the document was asked with.
        headers: {
          "content-type": "application/json; charset=utf-8",
          "cache-control": "public, max-age=300",
          vary: "host, x-forwarded-host, x-forwarded-proto",
        },
      });
    })
    .get(
      "/api/schema/report.json",
      () =>
        new Response(schemaJson, {
          headers: { "content-type": "application/schema+json", "cache-control": "public, max-age=300" },
        }),
    )
    .get(
      "/problems/:code",
      ({ params }) => {
        const entry = Object.hasOwn(PROBLEMS, params.code) ? PROBLEMS[params.code as ProblemCode] : undefined;
        if (!entry) {
          return new Response("Unknown problem type", { status: 404, headers: { "content-type": "text/plain" } });
        }
        const html = `<!doctype html><html lang="en"><meta charset="utf-8"><title>${entry.title}</title>
<h1>${entry.title}</h1><p>HTTP status ${entry.status}, code <code>${params.code}</code>.</p>
<p>See the error reference in the wpreport documentation (docs/errors.md) for causes and what to do.</p></html>`;
        return new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } });
      },
      { params: t.Object({ code: t.String({ maxLength: 64 }) }) },
    );
}
