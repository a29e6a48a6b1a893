/**
 * Probe keys, from the probe catalogue (probe-kinds.ts): the `ProbeKey` type every
 * `artifacts.probes` access is checked against, the key of a pattern kind's probe
 * (`probeKey("plugin_readme", slug)`) and the keys of block controls. Shared by every stage:
 * gather stores its answers under these keys, detect, extract and audit read them (the
 * requests themselves are gather's: gather/probes.ts).
 */
import { PROBE_KINDS } from "./probe-kinds.ts";

export type ProbeName = keyof typeof PROBE_KINDS;
/** The kinds whose key has a parameter, URL or path in it. */
export type PatternProbeName = {
  [N in ProbeName]: (typeof PROBE_KINDS)[N]["key"] extends `${string}<${string}>` ? N : never;
}[ProbeName];

type KeyOf<Pattern extends string> = Pattern extends `${infer Prefix}<${string}>` ? `${Prefix}${string}` : Pattern;
/** A key of `artifacts.probes`. */
export type ProbeKey = { [N in ProbeName]: KeyOf<(typeof PROBE_KINDS)[N]["key"]> }[ProbeName];

/** The key of a pattern kind's probe for `value` (its slug, URL or path): `probeKey("plugin_readme", "akismet")`. */
export function probeKey(name: PatternProbeName, value: string): ProbeKey {
  return PROBE_KINDS[name].key.replace(/<[a-z]+>$/, () => value) as ProbeKey;
}

/** The answers of a pattern kind, with the value each key was made with: `[["akismet", answer]]`. */
export function probeValues<Answer>(
  probes: Partial<Record<ProbeKey, Answer>>,
  name: PatternProbeName,
): [value: string, answer: Answer][] {
  const prefix = probeKey(name, "");
  return Object.entries(probes as Record<string, Answer | undefined>).flatMap(([key, answer]) =>
    key.startsWith(prefix) && answer !== undefined ? [[key.slice(prefix.length), answer]] : [],
  ) as [string, Answer][];
}

/** True when `text` is a probe key (an error's stage may be one, or "homepage", "asset"…). */
export function isProbeKey(text: string): text is ProbeKey {
  return Object.values(PROBE_KINDS).some(({ key }) =>
    key.endsWith(">") ? text.startsWith(key.slice(0, key.lastIndexOf("<"))) : text === key,
  );
}

/** Block controls (gather/block-controls.ts) are kept under the key of the probe they control, prefixed. */
const CONTROL_PREFIX = "block_control:";

/** The key of the control asked for probe `key`. */
export const controlKeyOf = (key: ProbeKey): ProbeKey => `${CONTROL_PREFIX}${key}` as ProbeKey;

/** True for a control's own key. */
export const isControlKey = (key: string): boolean => key.startsWith(CONTROL_PREFIX);
