/**
 * `npm start`: validate the configuration, start the service, stop cleanly on
 * SIGINT/SIGTERM. On the embedded default with no account yet, print how to get a token.
 */

import { createLogger } from "../platform/logger.ts";
import { installProcessGuard } from "../platform/process-guard.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { startService } from "./runtime.ts";
import { firstRunBanner } from "./start-banner.ts";

async function main() {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\nSee docs/configuration.md for every variable.\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.platform.logLevel);
  installProcessGuard(logger);
  const service = await startService(config, logger);
  logger.info("wpreport listening", {
    url: service.url,
    database: service.services.db.kind,
    rate_limiter: service.services.limiter.backend,
  });

  if (service.services.db.kind === "embedded" && (await service.services.accounts.count()) === 0) {
    process.stderr.write(firstRunBanner(config));
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info("shutting down", { signal });
    const force = setTimeout(() => process.exit(1), config.reports.analysisTimeoutMs + 10_000);
    force.unref();
    await service.stop();
    logger.info("stopped");
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}

main().catch((error) => {
  process.stderr.write(`wpreport failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
