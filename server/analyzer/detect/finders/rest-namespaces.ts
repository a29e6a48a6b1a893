/**
 * REST namespaces named after a plugin: `foo-bar/v1` in the REST index is the plugin
 * foo-bar when the WordPress.org directory has a plugin of that slug (the signature table
 * knows the namespaces that are not spelt like their slug, such as `yoast/v1`). WordPress's
 * own namespaces are never read. A namespace of a slug no index knows makes no plugin, but
 * backs up a name or identifier that points at the same slug (resolve.ts).
 */
import { siteText } from "../../untrusted-text.ts";
import { GENERIC_NAMES, SLUG_SHAPE } from "./name-keys.ts";
import type { Observation } from "./observation.ts";

/** WordPress core's namespaces (and the oEmbed one every site has). */
const CORE = new Set(["wp", "wp-site-health", "wp-block-editor", "oembed", "batch", "wp-abilities"]);

/** The first segment of each namespace that is shaped like a slug. */
export function namespaceRoots(namespaces: readonly string[]): Map<string, string> {
  const roots = new Map<string, string>();
  for (const namespace of namespaces) {
    const root = namespace.split("/")[0]?.toLowerCase() ?? "";
    if (CORE.has(root) || GENERIC_NAMES.has(root) || !SLUG_SHAPE.test(root) || roots.has(root)) continue;
    roots.set(root, namespace);
  }
  return roots;
}

export function restNamespaceObservations(namespaces: readonly string[], restUrl: string | undefined): Observation[] {
  return [...namespaceRoots(namespaces)].map(([root, namespace]) => ({
    source: "rest_namespace" as const,
    value: siteText(namespace, 100),
    ...(restUrl ? { url: siteText(restUrl, 500) } : {}),
    seen: `rest:${namespace}`,
    subject: { kind: "slug" as const, slug: root },
  }));
}
