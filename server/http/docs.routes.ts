/**
 * Public, unauthenticated documents: the report JSON Schema and the pages that problem
 * `type` URIs point to. (The OpenAPI document is served by @elysiajs/openapi in app.ts.)
 */
import { Elysia, t } from "elysia";
import { ReportSchema } from "../reports/report.schema.ts";
import { PROBLEMS, type ProblemCode } from "./problem.ts";

export function docsRoutes() {
  const schemaJson = JSON.stringify({ $schema: "https://json-schema.org/draft/2020-12/schema", ...ReportSchema });
  return new Elysia()
    .get(
      "/api/schema/report.json",
      () =>
        new Response(schemaJson, {
          headers: { "content-type": "application/schema+json", "cache-control": "public, max-age=300" },
        }),
      { detail: { summary: "Report JSON Schema", tags: ["Schema"] } },
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
      { params: t.Object({ code: t.String({ maxLength: 64 }) }), detail: { hide: true } },
    );
}
