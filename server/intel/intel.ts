/**
 * The intel feature, built once per process (services.ts): the per-report lookup (Wordfence
 * data, WPVulnerability, WordPress.org latest versions), the names index, and the refresher
 * the scheduled job runs (docs/intel.md).
 */

import type { Database } from "../platform/db/database.ts";
import type { Logger } from "../platform/logger.ts";
import { SERVICE_USER_AGENT } from "../platform/version.ts";
import type { AdvisoriesAdded } from "./advisories-added.ts";
import { DirectoryStore } from "./directory/directory.store.ts";
import { DirectoryRefresher } from "./directory/directory-refresh.ts";
import { importIntelFile } from "./importer.ts";
import { IntelService } from "./intel.service.ts";
import { IntelStore } from "./intel.store.ts";
import { LatestVersions } from "./latest-versions.ts";
import { IntelRefresher } from "./refresh.ts";
import type { IntelSettings } from "./settings.ts";
import { sourceNames } from "./source-names.ts";
import { WporgClient } from "./wporg.ts";
import { WpvulnerabilityClient } from "./wpvulnerability.ts";
import { WpvulnerabilityLookups } from "./wpvulnerability-lookups.ts";

export interface Intel {
  /** Component intelligence: the per-report lookup. */
  intel: IntelService;
  intelRefresher: IntelRefresher;
  /** The WordPress.org names index: name → slug lookups for reports (docs/intel.md). */
  names: DirectoryStore;
  /** Where other features learn which advisories each import adds (advisories-added.ts). */
  advisoriesAdded: AdvisoriesAdded;
  /**
   * Imports INTEL_FILE when it is set and changed (an unchanged one is not imported again);
   * services.ts calls it once every listener of advisoriesAdded is in place.
   */
  importIntelFile(): Promise<void>;
}

export async function createIntel(config: IntelSettings, db: Database, logger: Logger): Promise<Intel> {
  const { sql } = db;
  const store = new IntelStore(sql, undefined, db.kind === "embedded");
  const sourceNaming = sourceNames(config);
  const wporg = config.wporgApiUrl
    ? new WporgClient(config.wporgApiUrl, SERVICE_USER_AGENT, undefined, sourceNaming.wporg.name)
    : null;
  const latestVersions = new LatestVersions(store, wporg, logger);
  const wpvulnerability = new WpvulnerabilityLookups(
    store,
    config.wpvulnerabilityApiUrl
      ? new WpvulnerabilityClient(
          config.wpvulnerabilityApiUrl,
          SERVICE_USER_AGENT,
          undefined,
          sourceNaming.wpvulnerability.name,
        )
      : null,
    logger,
  );
  const intel = new IntelService(store, latestVersions, config.lookupBudgetMs, wpvulnerability, sourceNaming);
  const names = new DirectoryStore(sql);
  const namesRefresher = new DirectoryRefresher(names, config.wporgApiUrl ?? null, SERVICE_USER_AGENT, logger);
  const intelRefresher = new IntelRefresher(store, latestVersions, config, SERVICE_USER_AGENT, logger, namesRefresher);
  return {
    intel,
    intelRefresher,
    names,
    advisoriesAdded: store.added,
    // A bad intel file stops the start-up with its reason, rather than reports without data.
    importIntelFile: async () => {
      if (config.intelFile) await importIntelFile(store, config.intelFile);
    },
  };
}
