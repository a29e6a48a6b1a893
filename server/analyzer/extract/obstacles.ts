/**
 * What met each probe instead of an answer (facts.probes.obstacles): a firewall's challenge or
 * block page (detect/block-pages.ts), a 429 that persisted after its Retry-After (the client
 * asks a 429 once more after waiting, fetch/safe-client.ts), a server error, a timeout, or no
 * answer at all. A page that only reads like a block counts when its control — a random path of
 * the same shape (gather/block-controls.ts) — got the same page, or when no control was asked.
 */
import type { ReportError } from "../../../shared/report.ts";
import type { Artifacts, HttpArtifact } from "../artifacts.ts";
import { type BlockPage, blockPageOf, describeBlock, sameBlockPage } from "../detect/block-pages.ts";
import { askedAt } from "../detect/site-paths.ts";
import type { Obstacle } from "../facts.ts";
import { RATE_LIMIT_MAX_WAIT_MS } from "../fetch/rate-limit.ts";
import { controlKeyOf, isControlKey, isProbeKey, type ProbeKey } from "../probe-keys.ts";
import { siteText, siteUrl } from "../untrusted-text.ts";

/**
 * The path (and query) of a URL, as a reason quotes it; the whole URL for the probe of the
 * http:// homepage, whose path alone would read as the site's own homepage.
 */
export function quotedPath(url: string | undefined, key?: ProbeKey): string {
  if (!url) return "the probe's URL";
  try {
    const parsed = new URL(url);
    if (key === "http_redirect") return siteUrl(url);
    return siteText(`${parsed.pathname}${parsed.search}`, 120);
  } catch {
    return "the probe's URL";
  }
}

const pathOf = (answer: HttpArtifact) => new URL(askedAt(answer)).pathname;

/** The control asked for a block page like this one (the first of its kind got it), with the page it got. */
function controlFor(
  probes: Artifacts["probes"],
  answer: HttpArtifact,
): { control: HttpArtifact; original: HttpArtifact } | undefined {
  for (const [key, original] of Object.entries(probes) as [ProbeKey, HttpArtifact | undefined][]) {
    if (!original || isControlKey(key)) continue;
    const control = probes[controlKeyOf(key)];
    if (control && sameBlockPage(answer, original, pathOf(answer), pathOf(original))) return { control, original };
  }
  return undefined;
}

/** The obstacle of a block page, or null when its control shows it is the site's own answer. */
function blockObstacle(
  probes: Artifacts["probes"],
  key: ProbeKey,
  answer: HttpArtifact,
  page: BlockPage,
): Obstacle | null {
  const path = quotedPath(askedAt(answer), key);
  const what = describeBlock(page);
  const found = controlFor(probes, answer);
  const base = { kind: page.kind, vendor: page.vendor, path };
  if (!found) {
    return page.certain
      ? { ...base, reason: `${what} answered ${path}` }
      : { ...base, reason: `a page that reads like ${what} (${siteText(page.marker, 60)}) answered ${path}` };
  }
  const same = sameBlockPage(found.control, found.original, pathOf(found.control), pathOf(found.original));
  if (same) return { ...base, reason: `${what} answered ${path}, as it does a random path of the same shape` };
  // A page that only read like a block, and a path that cannot exist got something else: the
  // site's own answer about this path.
  if (!page.certain) return null;
  return {
    ...base,
    reason: `${what} answered ${path} (a random path of the same shape got HTTP ${found.control.status}: the firewall singles this path out)`,
  };
}

/** What met an answer, if anything. */
function answerObstacle(probes: Artifacts["probes"], key: ProbeKey, answer: HttpArtifact): Obstacle | null {
  const page = blockPageOf(answer);
  if (page) return blockObstacle(probes, key, answer, page);
  const path = quotedPath(askedAt(answer), key);
  if (answer.status === 429) {
    const asked = answer.headers["retry-after"];
    const seconds = asked && /^\d+$/.test(asked.trim()) ? Number(asked.trim()) : null;
    const longer = seconds !== null && seconds * 1000 > RATE_LIMIT_MAX_WAIT_MS;
    return {
      kind: "rate_limited",
      vendor: null,
      path,
      reason: longer
        ? `the site answered 429 (too many requests) for ${path} and asked to wait ${seconds} s, longer than a report waits`
        : `the site answered 429 (too many requests) for ${path}, again after waiting as it asked`,
    };
  }
  if (answer.status >= 500) {
    return {
      kind: "server_error",
      vendor: null,
      path,
      reason: `the site answered ${path} with a server error (HTTP ${answer.status})`,
    };
  }
  return null;
}

/** What a failed request met. */
function failureObstacle(key: ProbeKey, error: ReportError): Obstacle {
  const path = quotedPath(error.url, key);
  if (error.kind === "timeout")
    return { kind: "timeout", vendor: null, path, reason: `the request for ${path} timed out` };
  return {
    kind: "no_answer",
    vendor: null,
    path,
    reason: `the request for ${path} got no answer (${siteText(error.message.replace(/\.+$/, ""), 120)})`,
  };
}

/** Every probe's obstacle, by key (controls have none of their own). */
export function probeObstacles(artifacts: Artifacts): Partial<Record<ProbeKey, Obstacle>> {
  const obstacles: Partial<Record<ProbeKey, Obstacle>> = {};
  for (const [key, answer] of Object.entries(artifacts.probes) as [ProbeKey, HttpArtifact | undefined][]) {
    if (!answer || isControlKey(key)) continue;
    const obstacle = answerObstacle(artifacts.probes, key, answer);
    if (obstacle) obstacles[key] = obstacle;
  }
  for (const error of artifacts.errors) {
    if (!isProbeKey(error.stage) || isControlKey(error.stage) || error.stage in artifacts.probes) continue;
    obstacles[error.stage] ??= failureObstacle(error.stage, error);
  }
  return obstacles;
}
