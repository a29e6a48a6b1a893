/** Facts from the REST API root (/wp-json/): its namespaces tell which plugins registered routes. */
import type { Artifacts, HttpArtifact } from "../artifacts.ts";

/**
 * The fields of the REST index that are read (restNamespaces, and site-paths.ts's home and url):
 * the root is asked for these alone (`_fields`, WordPress 4.9.8+; older sites send the whole
 * index, read the same way). The whole index lists every route with its arguments — 167 KB on
 * the fixture, megabytes on a site with many plugins — which the site encodes and sends and we
 * decode and scan, for nothing.
 */
export const REST_INDEX_FIELDS = "name,url,home,namespaces";
const FIELDS_PARAMETER = `_fields=${REST_INDEX_FIELDS}`;

/**
 * The REST root asked for REST_INDEX_FIELDS only: the parameter is appended as text, so the
 * root's own query (`?rest_route=/`) is sent as the site wrote it.
 */
export function restIndexRequest(root: string): string {
  if (/[?&]_fields=/.test(root) || root.includes("#")) return root;
  return `${root}${root.includes("?") ? "&" : "?"}${FIELDS_PARAMETER}`;
}

/** The REST root an answer came from, as the site serves it: without the `_fields` we asked for. */
export function restRootUrl(answered: string): string {
  for (const separator of ["?", "&"]) {
    if (answered.endsWith(`${separator}${FIELDS_PARAMETER}`))
      return answered.slice(0, answered.length - FIELDS_PARAMETER.length - 1);
  }
  return answered;
}

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
