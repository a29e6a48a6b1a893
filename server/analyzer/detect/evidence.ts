/**
 * Combining evidence. Each signal has a probability of being right on its own;
 * independent signals combine as 1 − Π(1 − p) ("noisy OR"). For versions, candidates are
 * scored the same way and the winner is discounted by the share of version evidence that
 * disagrees with it.
 */
import type { Component, Evidence } from "../../../shared/report.ts";
import { compareDottedVersions } from "../../../shared/versions.ts";
import { versionKey } from "./version-sanity.ts";

export interface WeightedEvidence extends Evidence {
  /** Probability that this signal alone is right (0–1). */
  weight: number;
  /** A version this signal states, if any. */
  version?: string;
}

export function noisyOr(weights: readonly number[]): number {
  return 1 - weights.reduce((rest, weight) => rest * (1 - Math.min(Math.max(weight, 0), 1)), 1);
}

export function confidenceOf(signals: readonly WeightedEvidence[]): number {
  return Math.round(noisyOr(signals.map((signal) => signal.weight)) * 100);
}

export function pickVersion(signals: readonly WeightedEvidence[]): { version: string | null; confidence: number } {
  // "1.2" and "1.2.0" are one release: votes are counted by versionKey, and the release is
  // reported as its most detailed spelling.
  const byVersion = new Map<string, { spelling: string; weights: number[] }>();
  let total = 0;
  for (const signal of signals) {
    if (!signal.version) continue;
    const key = versionKey(signal.version);
    const known = byVersion.get(key);
    if (!known) byVersion.set(key, { spelling: signal.version, weights: [signal.weight] });
    else {
      known.weights.push(signal.weight);
      if (signal.version.length > known.spelling.length) known.spelling = signal.version;
    }
    total += signal.weight;
  }
  let version: string | null = null;
  let best = 0;
  let agreeing = 0;
  for (const { spelling, weights } of byVersion.values()) {
    const score = noisyOr(weights);
    // Ties go to the higher version: stale evidence (an old readme) is the usual reason for disagreement.
    if (score > best || (score === best && version !== null && compareReleases(spelling, version) > 0)) {
      best = score;
      version = spelling;
      agreeing = weights.reduce((sum, weight) => sum + weight, 0);
    }
  }
  if (!version || total === 0) return { version: null, confidence: 0 };
  return { version, confidence: Math.round(best * (agreeing / total) * 100) };
}

/**
 * Release order: dotted numbers first; between the same numbers, a pre-release ("1.2-beta",
 * "1.2.0-rc1") comes before the release itself, as semver has it.
 */
export function compareReleases(a: string, b: string): number {
  const numbers = (version: string) => version.replace(/[-.]?(?:alpha|beta|rc|a|b)\.?\d*$/i, "");
  const byNumbers = compareDottedVersions(numbers(a), numbers(b));
  if (byNumbers !== 0) return byNumbers;
  const pre = (version: string) => (numbers(version) === version ? 1 : 0);
  return pre(a) - pre(b);
}

/** A component from its signals: confidence, version and evidence; intel fills the rest later. */
export function componentFrom(slug: string, name: string | null, signals: readonly WeightedEvidence[]): Component {
  const { version, confidence: versionConfidence } = pickVersion(signals);
  return {
    slug,
    name,
    version,
    version_confidence: versionConfidence,
    confidence: confidenceOf(signals),
    evidence: toEvidence(signals),
    latest_version: null,
    outdated: null,
    vulnerabilities: [],
  };
}

/** Strips the weights, keeping the report's evidence shape. */
export function toEvidence(signals: readonly WeightedEvidence[]): Evidence[] {
  return signals.map(({ source, value, url }) => (url ? { source, value, url } : { source, value }));
}

/** A plausible plugin/theme version: 1–4 numeric parts, optional pre-release; not a timestamp. */
export function isPlausibleComponentVersion(version: string): boolean {
  return /^\d{1,4}(?:\.\d{1,5}){0,3}(?:[-.]?(?:alpha|beta|rc|a|b)\.?\d*)?$/i.test(version) && !/^\d{6,}$/.test(version);
}
