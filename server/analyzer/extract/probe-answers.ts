/**
 * The probe facts: each probe's answer without its body (URL, status, Location), and which
 * probes failed. Audits quote them as evidence and tell "answered" from "could not be
 * requested"; what an answer's body proves is established by the other extractors — besides
 * what met a probe instead of an answer (a challenge, a persistent 429…: extract/obstacles.ts).
 */
import type { HttpArtifact } from "../artifacts.ts";
import { askedAt } from "../detect/site-paths.ts";
import type { Detected, ProbeAnswer, ProbeFacts } from "../facts.ts";
import { isProbeKey, type ProbeKey } from "../probe-keys.ts";
import { probeObstacles } from "./obstacles.ts";

export function extractProbeAnswers({ artifacts }: Detected): ProbeFacts {
  const answers: Partial<Record<ProbeKey, ProbeAnswer>> = {};
  for (const [key, answer] of Object.entries(artifacts.probes) as [ProbeKey, HttpArtifact | undefined][]) {
    if (!answer) continue;
    const entry: ProbeAnswer = { url: answer.url, asked: askedAt(answer), status: answer.status };
    if (answer.headers.location !== undefined) entry.location = answer.headers.location;
    answers[key] = entry;
  }
  const failed = new Set(artifacts.errors.map((error) => error.stage).filter(isProbeKey));
  return { answers, failed, obstacles: probeObstacles(artifacts) };
}
