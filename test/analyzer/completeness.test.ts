/**
 * Incomplete reports (docs/report.md, "Incomplete reports"): more than half of the probes
 * without any answer, at least 4 asked → an `incomplete` entry first in errors[], no summary
 * (no grade). Answers of any status count as answers. On the saved WordPress fixture.
 */
import { describe, expect, test } from "bun:test";
import { buildResult } from "../../server/analyzer/analyze.ts";
import type { Artifacts } from "../../server/analyzer/artifacts.ts";
import {
  completeness,
  INCOMPLETE_FAILED_SHARE,
  INCOMPLETE_MIN_PROBES,
  isIncomplete,
} from "../../server/analyzer/completeness.ts";
import type { ProbeKey } from "../../server/analyzer/probe-keys.ts";
import { loadArtifacts, WP_FIXTURE } from "./artifacts.ts";

/** The fixture with the first `n` of its answered probes turned into timeouts. */
function withTimeouts(n: number): Artifacts {
  const artifacts = structuredClone(loadArtifacts(WP_FIXTURE));
  const keys = (Object.keys(artifacts.probes) as ProbeKey[]).slice(0, n);
  for (const key of keys) {
    const url = artifacts.probes[key]?.url ?? "";
    delete artifacts.probes[key];
    artifacts.errors.push({ stage: key, url, kind: "timeout", message: "no answer within the deadline" });
  }
  return artifacts;
}

const asked = Object.keys(loadArtifacts(WP_FIXTURE).probes).length;

describe("incomplete reports", () => {
  test("the fixture as captured is complete and graded", () => {
    const result = buildResult(loadArtifacts(WP_FIXTURE));
    expect(isIncomplete(result)).toBe(false);
    expect(result.summary?.grade).toBeDefined();
  });

  test("half of the probes without an answer is still complete", () => {
    const result = buildResult(withTimeouts(Math.floor(asked * INCOMPLETE_FAILED_SHARE)));
    expect(isIncomplete(result)).toBe(false);
    expect(result.summary).not.toBeNull();
  });

  test("more than half without an answer: incomplete, first in errors[], no grade", () => {
    const result = buildResult(withTimeouts(Math.floor(asked * INCOMPLETE_FAILED_SHARE) + 1));
    expect(isIncomplete(result)).toBe(true);
    expect(result.errors[0]).toMatchObject({ stage: "analysis", kind: "incomplete" });
    expect(result.errors[0]?.message).toContain(`of ${asked} probes`);
    expect(result.summary).toBeNull();
    // What was learnt stays: the homepage's facts and detection.
    expect(result.wordpress?.detected).toBe(true);
    expect(result.performance).not.toBeNull();
  });

  test("answers of any status are answers; too few probes never judge", () => {
    expect(
      completeness(
        {
          answers: {
            robots: { url: "/robots.txt", asked: "/robots.txt", status: 404 },
            feed: { url: "/feed/", asked: "/feed/", status: 500 },
          },
          failed: new Set<ProbeKey>(["rest_root"]),
        },
        200,
      ),
    ).toEqual({ asked: 3, failed: 1, homepageError: null, incomplete: false });
    const few = new Set<ProbeKey>(["robots", "feed", "rest_root"]);
    expect(INCOMPLETE_MIN_PROBES).toBeGreaterThan(few.size);
    expect(completeness({ answers: {}, failed: few }, 200).incomplete).toBe(false);
  });

  /** The fixture with its homepage's answer turned into `status` (same page, as error pages often are). */
  function withHomepageStatus(status: number): Artifacts {
    const artifacts = structuredClone(loadArtifacts(WP_FIXTURE));
    artifacts.homepage.status = status;
    return artifacts;
  }

  test("a homepage that answers an error status is incomplete: no grade, and the entry says what to do", () => {
    for (const [status, words] of [
      [401, "asks for credentials (HTTP 401)"],
      [403, "refused the analyzer (HTTP 403)"],
      [404, "HTTP 404"],
      [500, "answered an error (HTTP 500)"],
      [503, "answered an error (HTTP 503)"],
    ] as const) {
      const result = buildResult(withHomepageStatus(status));
      expect(isIncomplete(result)).toBe(true);
      expect(result.summary).toBeNull();
      expect(result.errors[0]?.message).toContain(words);
    }
    // A redirect's final answer of 200 and a 2xx other than 200 are pages to grade.
    expect(isIncomplete(buildResult(withHomepageStatus(203)))).toBe(false);
  });

  test("behind a homepage that is an error page the vulnerability data is unknown, never complete", () => {
    // (buildResult here has no intel source: the graded page's data is "none" for that reason, not this one.)
    expect(buildResult(withHomepageStatus(200)).intel?.vulnerability_data?.message ?? "").not.toContain(
      "were not seen",
    );
    for (const status of [401, 403, 503]) {
      const data = buildResult(withHomepageStatus(status)).intel?.vulnerability_data;
      expect({ status, data: data?.status }).toEqual({ status, data: "none" });
      expect(data?.message).toContain(`answered HTTP ${status}, so its components were not seen`);
    }
  });

  test("behind a homepage that is an error page nothing passes: each would-be pass is not checked, and listed", () => {
    const graded = buildResult(withHomepageStatus(200));
    const passing = graded.checks.filter((check) => check.status === "pass").map((check) => check.id);
    expect(passing.length).toBeGreaterThan(10);
    for (const status of [401, 403, 503]) {
      const result = buildResult(withHomepageStatus(status));
      expect({ status, passes: result.checks.filter((check) => check.status === "pass").map((c) => c.id) }).toEqual({
        status,
        passes: [],
      });
      const env = result.checks.find((check) => check.id === "security.env_file_exposed");
      expect(env?.status).toBe("skip");
      expect(env?.message).toMatch(/HTTP \d{3}.*not seen: not checked\.$/);
      expect(result.not_checked?.map((entry) => entry.check)).toEqual(
        expect.arrayContaining(["security.env_file_exposed"]),
      );
    }
    expect(
      buildResult(withHomepageStatus(401)).checks.find((c) => c.id === "security.env_file_exposed")?.message,
    ).toContain("asked for credentials (HTTP 401)");
  });

  test("behind a homepage that is an error page no check states anything about the site: no fail, no warn, no 'not WordPress'", () => {
    // The wall's page: no title, no WordPress, no security headers. A graded report of it fails
    // and skips checks with words about "the homepage" and "the site".
    const wall = (artifacts: Artifacts) => {
      artifacts.homepage.body = "<html><body><h1>401 Authorization Required</h1></body></html>";
      artifacts.homepage.headers = { "content-type": "text/html", "www-authenticate": 'Basic realm="staging"' };
      return artifacts;
    };
    const graded = buildResult(wall(withHomepageStatus(200)));
    expect(graded.checks.filter((check) => check.status === "fail").length).toBeGreaterThan(5);
    expect(graded.checks.find((check) => check.id === "seo.title")?.status).toBe("fail");
    for (const status of [401, 403, 503]) {
      const result = buildResult(wall(withHomepageStatus(status)));
      const said = result.checks.filter(
        (check) => check.status !== "skip" || !check.message.endsWith("not seen: not checked."),
      );
      expect({ status, said: said.map((check) => `${check.id} ${check.status}: ${check.message}`) }).toEqual({
        status,
        said: [],
      });
      expect(result.not_checked?.length).toBe(result.checks.length);
    }
  });
});
