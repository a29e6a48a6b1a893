/**
 * The report's JSON Schema as users' validators see it: the document /api/schema/report.json
 * serves compiles in Ajv's strict mode (draft 2020-12), real reports validate against it, and
 * it refuses what the report never holds (a score as a string, a grade outside A–F). The
 * OpenAPI document's Report component is the same schema.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Report } from "../../shared/report.ts";
import { strictAjv } from "../helpers/report-schema.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { startBlog, type TestSite } from "../helpers/sites.ts";

describe("the served report JSON Schema", () => {
  let service: TestService;
  let site: TestSite;
  let schema: Record<string, unknown>;
  let report: Report;

  beforeAll(async () => {
    service = await startTestService();
    site = startBlog();
    const response = await fetch(`${service.url}/api/schema/report.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/schema+json");
    schema = (await response.json()) as Record<string, unknown>;
    const { token } = await service.token();
    const created = await service.call<Report>("POST", "/api/generate-report", { token, body: { url: site.url } });
    expect(created.status).toBe(201);
    report = created.body;
  });

  afterAll(async () => {
    site?.stop();
    await service?.stop();
  });

  test("is draft 2020-12 and compiles in Ajv strict mode (no unknown formats or keywords, strict types)", () => {
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(JSON.stringify(schema)).not.toContain('"format":"integer"');
    expect(() => strictAjv().compile(schema)).not.toThrow();
  });

  test("a real report validates; wrong types and values are refused", () => {
    const validate = strictAjv().compile(schema);
    expect(validate(report)).toBe(true);
    expect(validate.errors ?? []).toEqual([]);

    const stringScore = structuredClone(report) as unknown as { summary: { score: unknown } };
    stringScore.summary.score = "85";
    expect(validate(stringScore)).toBe(false);
    expect(validate.errors?.[0]?.instancePath).toBe("/summary/score");

    const badGrade = structuredClone(report) as unknown as { summary: { grade: unknown } };
    badGrade.summary.grade = "Z";
    expect(validate(badGrade)).toBe(false);

    const badSeverity = structuredClone(report);
    (badSeverity.checks[0] as { severity: string }).severity = "urgent";
    expect(validate(badSeverity)).toBe(false);

    const missing = structuredClone(report) as Partial<Report>;
    delete missing.checks;
    expect(validate(missing)).toBe(false);
  });

  test("the OpenAPI document's Report component validates the same report (strict mode too)", async () => {
    const document = (await (await fetch(`${service.url}/api/openapi.json`)).json()) as {
      components: { schemas: Record<string, unknown> };
    };
    const ajv = strictAjv();
    // The OpenAPI document's own section name; its schemas are JSON Schema 2020-12.
    ajv.addKeyword({ keyword: "components", schemaType: "object" });
    ajv.addSchema({ $id: "https://wpreport.test/openapi", components: document.components }, "openapi");
    const validate = ajv.compile({ $ref: "https://wpreport.test/openapi#/components/schemas/Report" });
    expect(validate(report)).toBe(true);
    const stringScore = structuredClone(report) as unknown as { summary: { score: unknown } };
    stringScore.summary.score = "85";
    expect(validate(stringScore)).toBe(false);
  });
});
