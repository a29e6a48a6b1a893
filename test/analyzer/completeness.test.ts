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
import type { ProbeKey } from "../../server/analyzer/gather/probes.ts";
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
      completeness({
        answers: {
          robots: { url: "/robots.txt", asked: "/robots.txt", status: 404 },
          feed: { url: "/feed/", asked: "/feed/", status: 500 },
        },
        failed: new Set<ProbeKey>(["rest_root"]),
      }),
    ).toEqual({ asked: 3, failed: 1, incomplete: false });
    const few = new Set<ProbeKey>(["robots", "feed", "rest_root"]);
    expect(INCOMPLETE_MIN_PROBES).toBeGreaterThan(few.size);
    expect(completeness({ answers: {}, failed: few }).incomplete).toBe(false);
  });
});
