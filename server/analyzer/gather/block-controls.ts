/**
 * Controls after a challenge or block page (probe `block_control`). When a probe met a
 * firewall's page, a random path of the same shape is asked once: if it gets the same page,
 * the firewall filters such paths whatever is there — the probe's path was filtered, not
 * answered. For a page that only reads like a block (detect/block-pages.ts, `certain: false`)
 * that is what makes it one; for a vendor's challenge it is the reason's last clause.
 *
 * Asked only when a probe met such a page, after the wave: an ordinary report asks none. One
 * control per distinct page (the same Cloudflare challenge on .git/HEAD, .env and debug.log is
 * one page), at most MAX_BLOCK_CONTROLS.
 */
import type { Artifacts, HttpArtifact } from "../artifacts.ts";
import { blockPageOf, sameBlockPage } from "../detect/block-pages.ts";
import { askedAt } from "../detect/site-paths.ts";
import { isControlKey, type ProbeKey } from "../probe-keys.ts";
import { PROBE_KINDS, type ProbeKind } from "../probe-kinds.ts";
import { MAX_BLOCK_CONTROLS, type ProbeSpec, probeAt } from "./probes.ts";

/**
 * A random path of the same shape: the last segment's name replaced, its leading dot and its
 * extensions kept (/.git/HEAD → /.git/wpreport-1a2b3c4d, /.env → /.wpreport-1a2b3c4d,
 * /wp-content/debug.log → /wp-content/wpreport-1a2b3c4d.log, /backup-db/ → /wpreport-1a2b3c4d/).
 */
export function controlUrl(url: string, token: string): string {
  const control = new URL(url);
  const segments = control.pathname.split("/");
  const name = `wpreport-${token}`;
  const last = segments.length - 1;
  if (segments[last] === "") {
    if (last >= 2) segments[last - 1] = name;
    else segments[last] = `${name}/`;
  } else {
    const [, dot = "", extensions = ""] = /^(\.?)[^.]*(.*)$/.exec(segments[last] ?? "") ?? [];
    segments[last] = `${dot}${name}${extensions}`;
  }
  control.pathname = segments.join("/");
  return control.toString();
}

/** The kind a key belongs to (its fixed key, or its pattern's prefix). */
function kindOf(key: string): ProbeKind | undefined {
  return (Object.values(PROBE_KINDS) as ProbeKind[]).find((kind) =>
    kind.key.endsWith(">") ? key.startsWith(kind.key.slice(0, kind.key.lastIndexOf("<"))) : key === kind.key,
  );
}

/** The control's request: the probe's method and body at the control URL, never following redirects. */
export function controlSpec(key: ProbeKey, answer: HttpArtifact, token: string): ProbeSpec {
  const kind = kindOf(key);
  const spec = probeAt("block_control", controlUrl(askedAt(answer), token), key);
  return { ...spec, method: kind?.method, headers: kind?.headers, body: kind?.body, idempotent: kind?.idempotent };
}

/** The probes (by key, in key order) whose control is asked: the first of each distinct block page. */
export function controlsToAsk(probes: Artifacts["probes"]): [ProbeKey, HttpArtifact][] {
  const chosen: [ProbeKey, HttpArtifact][] = [];
  const entries = (Object.entries(probes) as [ProbeKey, HttpArtifact | undefined][])
    .filter((entry): entry is [ProbeKey, HttpArtifact] => entry[1] !== undefined && !isControlKey(entry[0]))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [key, answer] of entries) {
    if (chosen.length >= MAX_BLOCK_CONTROLS) break;
    if (!blockPageOf(answer)) continue;
    const path = new URL(askedAt(answer)).pathname;
    const seen = chosen.some(([, other]) => sameBlockPage(answer, other, path, new URL(askedAt(other)).pathname));
    if (!seen) chosen.push([key, answer]);
  }
  return chosen;
}

/** Asks the controls the probes' block pages call for (none when no probe met one). */
export async function askBlockControls(
  run: (spec: ProbeSpec) => Promise<unknown>,
  artifacts: Artifacts,
  token: () => string = () => crypto.randomUUID().slice(0, 8),
): Promise<void> {
  await Promise.all(controlsToAsk(artifacts.probes).map(([key, answer]) => run(controlSpec(key, answer, token()))));
}
