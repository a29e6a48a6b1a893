/**
 * What other features learn when an import adds advisories: a listener runs inside the
 * transaction that serves the import's new generation, with the advisories that generation
 * has and the previous generation of the same source did not (by component and advisory id).
 * So whatever a listener writes (a fan-out job) commits exactly when the new data is served,
 * and a failed or abandoned import tells nobody.
 *
 *   intel.store.added.listen(async (tx, added) => { … });   // services.ts wires them
 *
 * The first import of a source is its baseline and adds nothing: every advisory in it would
 * otherwise be "new", and sites would be told at once of everything ever published. A
 * listener must be quick (a few statements, no network): the import waits for it.
 */
import type { Queryable } from "../platform/db/database.ts";
import type { AdvisoryRow } from "./intel.store.ts";

/** One added advisory as it affects one component, with the source that published it. */
export type AddedAdvisory = Omit<AdvisoryRow, "published_at" | "updated_at"> & { source: string };

export interface AdvisoriesAddedBatch {
  source: string;
  /** The generation now served. */
  generation: string;
  advisories: AddedAdvisory[];
}

export type AdvisoriesAddedListener = (tx: Queryable, batch: AdvisoriesAddedBatch) => Promise<void>;

export class AdvisoriesAdded {
  private readonly listeners: AdvisoriesAddedListener[] = [];

  listen(listener: AdvisoriesAddedListener): void {
    this.listeners.push(listener);
  }

  /** Whether anyone listens: without listeners an import does not look for added advisories. */
  get wanted(): boolean {
    return this.listeners.length > 0;
  }

  /** Runs every listener, in the order they were added, in the caller's transaction. */
  async added(tx: Queryable, batch: AdvisoriesAddedBatch): Promise<void> {
    if (batch.advisories.length === 0) return;
    for (const listener of this.listeners) await listener(tx, batch);
  }
}
