/**
 * Aggressive enumeration's plan: which plugin and theme slugs to probe, in which order, and
 * within which budgets. Like WPScan's `--enumerate vp,vt`, it asks first about the slugs with
 * known vulnerabilities (an installed vulnerable plugin is what an attacker looks for, active
 * or not), then about popular slugs that ship with the project (popular-slugs.json). Building
 * the plan is pure; the service fills `vulnerable` from its component intelligence.
 */
import { isComponentSlug } from "../detect/site-paths.ts";
import popular from "./popular-slugs.json" with { type: "json" };

export interface EnumerationBudget {
  /** Requests the enumeration may make in all (calibration and version reads included). */
  maxRequests: number;
  /** Wall time the enumeration may take, from its start. */
  timeBudgetMs: number;
}

export interface EnumerationPlan extends EnumerationBudget {
  /** Plugin slugs, most wanted first. */
  plugins: string[];
  themes: string[];
  /** How many of the leading slugs of each list come from the vulnerability data. */
  vulnerable: { plugins: number; themes: number };
}

export const DEFAULT_ENUMERATION_BUDGET: EnumerationBudget = { maxRequests: 300, timeBudgetMs: 12_000 };

/** Candidates kept per list: a budget stops far earlier, and a plan crosses a thread boundary. */
export const MAX_CANDIDATES = 1_000;

export const POPULAR_SLUGS: { plugins: readonly string[]; themes: readonly string[] } = {
  plugins: popular.plugins,
  themes: popular.themes,
};

function merge(first: readonly string[], then: readonly string[]): { slugs: string[]; fromFirst: number } {
  const seen = new Set<string>();
  const slugs: string[] = [];
  let fromFirst = 0;
  for (const [index, list] of [first, then].entries()) {
    for (const slug of list) {
      if (slugs.length >= MAX_CANDIDATES) break;
      if (!isComponentSlug(slug) || seen.has(slug)) continue;
      seen.add(slug);
      slugs.push(slug);
      if (index === 0) fromFirst += 1;
    }
  }
  return { slugs, fromFirst };
}

/** Vulnerable slugs first (in the order given: worst first), then the popular ones. */
export function enumerationPlan(
  vulnerable: { plugins: readonly string[]; themes: readonly string[] },
  budget: EnumerationBudget = DEFAULT_ENUMERATION_BUDGET,
  popularSlugs: { plugins: readonly string[]; themes: readonly string[] } = POPULAR_SLUGS,
): EnumerationPlan {
  const plugins = merge(vulnerable.plugins, popularSlugs.plugins);
  const themes = merge(vulnerable.themes, popularSlugs.themes);
  return {
    ...budget,
    plugins: plugins.slugs,
    themes: themes.slugs,
    vulnerable: { plugins: plugins.fromFirst, themes: themes.fromFirst },
  };
}
