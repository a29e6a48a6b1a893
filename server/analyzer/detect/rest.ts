/** Facts from the REST API root (/wp-json/): its namespaces tell which plugins registered routes. */
import type { Artifacts, HttpArtifact } from "../artifacts.ts";

/** True when the probe answered like a WordPress REST root (JSON with namespaces). */
export function isRestRoot(artifact: HttpArtifact | undefined): artifact is HttpArtifact {
  return !!artifact && artifact.status === 200 && /"namespaces"\s*:\s*\[/.test(artifact.body.slice(0, 200_000));
}

/**
 * The namespaces listed by the REST root. Read with a regular expression rather than
 * JSON.parse: the root lists every route and is often cut at the probe's size cap, while
 * the namespaces come first.
 */
export function restNamespaces(artifacts: Artifacts): string[] {
  const root = artifacts.probes.rest_root;
  if (!isRestRoot(root)) return [];
  // The first list only: retrying `\[([^\]]{0,20000})\]` at every "namespaces" key of a
  // hostile 128 KB body cost half a second (test/analyzer/hostile/property.test.ts).
  const start = /"namespaces"\s*:\s*\[/.exec(root.body);
  const tail = start ? root.body.slice(start.index + start[0].length, start.index + start[0].length + 20_001) : "";
  const end = tail.indexOf("]");
  const list = end < 0 ? "" : tail.slice(0, end);
  const names: string[] = [];
  for (const match of list.matchAll(/"((?:[^"\\]|\\.){1,100})"/g)) {
    const name = (match[1] ?? "").replaceAll("\\/", "/");
    if (/^[a-z0-9._-]+(?:\/[a-z0-9._-]+)*$/i.test(name) && names.length < 200) names.push(name);
  }
  return names;
}
