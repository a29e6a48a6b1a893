/**
 * The probe runner: asks a probe (gather/probes.ts) through the client and files its answer
 * under its key in `artifacts.probes`, or its failure in `errors[]` — never a failed analysis.
 * A key is asked once: a second asker waits for the first.
 */
import type { ReportError } from "../../../shared/report.ts";
import type { Artifacts, HttpArtifact } from "../artifacts.ts";
import { blockPageOf } from "../detect/block-pages.ts";
import { FetchFailure, type SafeClient } from "../fetch/safe-client.ts";
import type { ProbeKey } from "../probe-keys.ts";
import { toArtifact } from "./decode.ts";
import { PROBE_MAX_BYTES, type ProbeSpec } from "./probes.ts";

/**
 * HEAD answers after which the body is still needed: found (200/206), HEAD not supported, or
 * refused in a way a firewall's block or challenge page may explain (403, 503): only the page
 * tells a challenge from the server's own refusal (detect/block-pages.ts).
 */
const HEAD_NEEDS_GET = new Set([200, 206, 400, 403, 405, 501, 503]);
/** The answers after which a `headFirst: "missing"` probe's HEAD stands. */
const MISSING = new Set([404, 410]);

export function failureEntry(stage: string, url: string, error: unknown): ReportError {
  if (error instanceof FetchFailure) return { stage, url, kind: error.kind, message: error.message };
  return { stage, url, kind: "error", message: "unexpected failure" };
}

export type ProbeOutcome = { artifact: HttpArtifact } | { error: ReportError };

export class Probes {
  /**
   * Set once the first wave is queued. Every request asked after that was waiting on an
   * answer — it is a chain's next link — so it goes before what is still queued.
   */
  firstWaveQueued = false;

  constructor(
    private readonly client: SafeClient,
    private readonly artifacts: Artifacts,
  ) {}

  /** Probes under way by key: a second asker of the same key (a readme both the REST API and a listing name) waits for the first. */
  private readonly inFlight = new Map<ProbeKey, Promise<HttpArtifact | undefined>>();

  /** Probes that failed, by key and URL: asked again they answer nothing rather than ask twice (one errors[] entry each). */
  private readonly failed = new Set<string>();

  async run(spec: ProbeSpec): Promise<HttpArtifact | undefined> {
    if (spec.key in this.artifacts.probes) return this.artifacts.probes[spec.key];
    if (this.failed.has(`${spec.key} ${spec.url}`)) return undefined;
    const pending = this.inFlight.get(spec.key);
    if (pending) return pending;
    const asked = this.attempt(spec).then((outcome) => this.keep(spec, outcome));
    this.inFlight.set(spec.key, asked);
    try {
      return await asked;
    } finally {
      this.inFlight.delete(spec.key);
    }
  }

  /** Asks without recording: for speculative probes, kept only if the guess was right. */
  async attempt(spec: ProbeSpec): Promise<ProbeOutcome> {
    try {
      const options = {
        headers: spec.headers,
        body: spec.body,
        follow: spec.follow ?? true,
        maxBodyBytes: spec.maxBytes ?? PROBE_MAX_BYTES,
        idempotent: spec.idempotent,
      };
      // HEAD-first (ProbeSpec.headFirst) over HTTP/1.1 too: the HEAD keeps its connection
      // (fetch/safe-client.ts), and WordPress answers a HEAD for a missing file without
      // rendering its 404 page — a third of the site's time for the probes that miss.
      if (spec.headFirst) {
        const onlyMissing = spec.headFirst === "missing";
        const head = await this.client.fetch(spec.url, {
          ...options,
          ...(onlyMissing ? { follow: false } : {}),
          method: "HEAD",
          urgent: this.firstWaveQueued,
        });
        const answered = toArtifact(head);
        const stands = onlyMissing
          ? MISSING.has(head.status)
          : // A vendor's challenge or block header says it all: no page needed.
            !HEAD_NEEDS_GET.has(head.status) || blockPageOf(answered)?.certain;
        if (stands) return { artifact: answered };
      }
      const result = await this.client.fetch(spec.url, {
        ...options,
        method: spec.method ?? "GET",
        urgent: this.firstWaveQueued,
      });
      return { artifact: toArtifact(result) };
    } catch (error) {
      return { error: failureEntry(spec.key, spec.url, error) };
    }
  }

  keep(spec: ProbeSpec, outcome: ProbeOutcome): HttpArtifact | undefined {
    if ("error" in outcome) {
      this.failed.add(`${spec.key} ${spec.url}`);
      this.artifacts.errors.push(outcome.error);
      return undefined;
    }
    this.artifacts.probes[spec.key] = outcome.artifact;
    // Its page is read now, while the wave is out: the controls after the wave and the
    // report ask again, and find the reading kept (detect/block-pages.ts).
    blockPageOf(outcome.artifact);
    return outcome.artifact;
  }
}
