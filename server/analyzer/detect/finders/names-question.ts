/**
 * Asking the names index (directory.ts) about the names and slugs a site shows. Gather asks
 * once the homepage is in — before it decides which plugins found without a version get
 * their files read — and analyze() asks again after gather only about what the probes added
 * (REST namespaces, redirects' credit headers), if anything. The answers are merged into
 * `artifacts.directory`, so detection stays a pure function of the artifacts.
 */
import type { Artifacts } from "../../artifacts.ts";
import type { DirectoryAnswer, NameLookup, NameQuery } from "./directory.ts";
import { nameQuery } from "./observations.ts";

/** How long detection waits for the names index (two indexed queries; a stuck database must not hold the report). */
export const NAMES_LOOKUP_TIMEOUT_MS = 5_000;

/** What has been asked for each report's artifacts already. */
const asked = new WeakMap<Artifacts, { names: Set<string>; slugs: Set<string> }>();

function merge(into: DirectoryAnswer | undefined, answer: DirectoryAnswer): DirectoryAnswer {
  if (!into) return answer;
  return {
    available: into.available || answer.available,
    names: { ...into.names, ...answer.names },
    slugs: { ...into.slugs, ...answer.slugs },
  };
}

/** Asks about the names and slugs not asked yet; a failure is recorded once in the report's errors. */
export async function askNames(artifacts: Artifacts, lookup: NameLookup, signal: AbortSignal): Promise<void> {
  const done = asked.get(artifacts) ?? { names: new Set<string>(), slugs: new Set<string>() };
  asked.set(artifacts, done);
  const all = nameQuery(artifacts);
  const query: NameQuery = {
    names: all.names.filter((name) => !done.names.has(name)),
    slugs: all.slugs.filter((slug) => !done.slugs.has(slug)),
  };
  if (query.names.length === 0 && query.slugs.length === 0) return;
  for (const name of query.names) done.names.add(name);
  for (const slug of query.slugs) done.slugs.add(slug);
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${NAMES_LOOKUP_TIMEOUT_MS / 1000} s`)),
        NAMES_LOOKUP_TIMEOUT_MS,
      );
      signal.addEventListener("abort", () => reject(new Error("the analysis was stopped")), { once: true });
    });
    artifacts.directory = merge(artifacts.directory, await Promise.race([lookup(query), late]));
  } catch (error) {
    if (artifacts.errors.some((entry) => entry.kind === "names_unavailable")) return;
    // Detection goes on with the signature table and the site's readmes only.
    artifacts.errors.push({
      stage: "names",
      kind: "names_unavailable",
      message: `The WordPress.org names index could not be asked, so plugins were named from built-in signatures only: ${(error as Error).message}`,
    });
  } finally {
    clearTimeout(timer);
  }
}
