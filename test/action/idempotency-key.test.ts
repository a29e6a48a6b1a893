/**
 * The Idempotency-Key the Action and the CLI send with POST /api/generate-report: the same for
 * a retry of the same step's request, another for anything else (step, job, matrix job, body),
 * and always within the service's limits (1–255 printable ASCII, server/idempotency).
 */
import { describe, expect, test } from "bun:test";
import { isValidIdempotencyKey } from "../../server/access/idempotency.service.ts";
import { type GenerateReportInput, idempotencyKeyFor } from "../../shared/client.ts";

const github = {
  GITHUB_RUN_ID: "9876543210",
  GITHUB_RUN_ATTEMPT: "1",
  GITHUB_JOB: "deploy",
  GITHUB_ACTION: "wpreport",
};
const body: GenerateReportInput = {
  url: "https://staging.example.com/",
  metadata: { environment: "staging", git_sha: "0123456789abcdef", git_ref: "refs/heads/main" },
};

describe("idempotencyKeyFor", () => {
  test("a retry of the same step's request gets the same key, whatever the body's key order", () => {
    const key = idempotencyKeyFor(github, body);
    expect(key).toMatch(/^ci-9876543210-1-[0-9a-f]{32}$/);
    const reordered: GenerateReportInput = {
      metadata: { git_ref: "refs/heads/main", git_sha: "0123456789abcdef", environment: "staging" },
      url: "https://staging.example.com/",
    };
    expect(idempotencyKeyFor({ ...github }, reordered)).toBe(key as string);
    expect(idempotencyKeyFor(github, body, { matrix: "null" })).toBe(key as string); // no matrix, as toJSON(matrix) gives it
    expect(idempotencyKeyFor(github, body, { matrix: "" })).toBe(key as string);
  });

  test("another step, job, attempt, matrix combination or body gets another key", () => {
    const key = idempotencyKeyFor(github, body);
    const others = [
      idempotencyKeyFor({ ...github, GITHUB_ACTION: "wpreport-production" }, body), // a second step of the job
      idempotencyKeyFor({ ...github, GITHUB_ACTION: "__acme_wpreport_2" }, body), // the same action used twice
      idempotencyKeyFor({ ...github, GITHUB_JOB: "audit" }, body),
      idempotencyKeyFor({ ...github, GITHUB_RUN_ATTEMPT: "2" }, body),
      idempotencyKeyFor(github, body, { matrix: '{\n  "site": "https://client-a.example"\n}' }),
      idempotencyKeyFor(github, body, { matrix: '{\n  "site": "https://client-b.example"\n}' }),
      idempotencyKeyFor(github, { ...body, metadata: { ...body.metadata, environment: "production" } }),
      idempotencyKeyFor(github, { ...body, url: "https://www.example.com/" }),
      idempotencyKeyFor(github, { ...body, mode: "aggressive" }),
    ];
    expect(new Set([key, ...others]).size).toBe(others.length + 1);
  });

  test("the matrix counts by its values, not by how toJSON laid them out", () => {
    expect(idempotencyKeyFor(github, body, { matrix: '{"php": "8.3", "site": "a"}' })).toBe(
      idempotencyKeyFor(github, body, { matrix: '{\n  "site": "a",\n  "php": "8.3"\n}' }) as string,
    );
  });

  test("other CI systems: GitLab's pipeline and job, Jenkins' build tag; none outside CI", () => {
    const gitlab = idempotencyKeyFor({ CI_PIPELINE_ID: "555", CI_JOB_ID: "777", CI_JOB_NAME: "wpreport" }, body);
    expect(gitlab).toMatch(/^ci-555-777-[0-9a-f]{32}$/);
    expect(idempotencyKeyFor({ CI_PIPELINE_ID: "555", CI_JOB_ID: "778", CI_JOB_NAME: "wpreport" }, body)).not.toBe(
      gitlab as string,
    );
    // Jenkins' BUILD_TAG holds the job's name, which may have spaces and any letters.
    const jenkins = idempotencyKeyFor({ BUILD_TAG: "jenkins-Déploiement du site-42" }, body);
    expect(jenkins).toMatch(/^ci-jenkins-D_ploiement_du_site-42-1-[0-9a-f]{32}$/);
    expect(idempotencyKeyFor({ BUILD_TAG: "jenkins-Deploiement du site-42" }, body)).not.toBe(jenkins as string);
    expect(idempotencyKeyFor({}, body)).toBeUndefined();
  });

  test("always a key the service accepts, however long or odd the CI variables", () => {
    const key = idempotencyKeyFor(
      {
        BUILD_TAG: `jenkins-${"ünïcode ".repeat(80)}`,
        CI_JOB_ID: "\u0000\n".repeat(100),
        GITHUB_JOB: "x".repeat(1000),
      },
      { url: `https://example.com/${"a".repeat(5000)}` },
    ) as string;
    expect(isValidIdempotencyKey(key)).toBe(true);
    expect(key.length).toBeLessThanOrEqual(3 + 64 + 1 + 64 + 1 + 32);
  });
});
