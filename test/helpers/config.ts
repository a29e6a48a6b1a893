/** The problems loadConfig reports for an environment (empty when it is valid). */
import { ConfigError, loadConfig } from "../../server/start/config.ts";

export function configProblems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.problems;
  }
}
