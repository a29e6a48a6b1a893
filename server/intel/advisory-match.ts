/**
 * Whether an advisory affects an installed version, and the fix for that version: the very
 * rules a report applies (analyzer/intel: assessComponent, with its ranges and backported
 * fixes), so that a site is told about an advisory exactly when its next report would list it.
 */
import { assessComponent } from "../analyzer/intel/apply.ts";
import type { AddedAdvisory } from "./advisories-added.ts";
import { vulnerabilityOf } from "./intel.service.ts";

export interface AdvisoryMatch {
  /** The version to update to from the installed one; null when unfixed. */
  fixed_in: string | null;
}

/** The match when `advisory` affects `version`, else null (an unknown version never matches). */
export function advisoryAffects(advisory: AddedAdvisory, version: string | null): AdvisoryMatch | null {
  const [found] = assessComponent(version, {
    latest_version: null,
    latest_version_reason: null,
    vulnerabilities: [vulnerabilityOf(advisory)],
  }).vulnerabilities;
  return found ? { fixed_in: found.fixed_in ?? null } : null;
}
