/**
 * Where a name in a credit starts and ends, and whose it is. A credit names the plugin it
 * names — not a plugin whose name is only part of it, and not the plugin it is made for:
 *
 *   "Shopfront Payments Plugin for WooCommerce 2.3.1"  credits Shopfront Payments, not WooCommerce
 *   "Simple Events Calendar 1.3.5 by Eventful"          credits Simple Events Calendar, not The Events Calendar
 *   "Acme Sync 1.4.2 - requires WPML 4.6.9"             credits Acme Sync, not WPML
 *   "Feed Lite 4.1.0 (compatible with WooCommerce 8.9)" credits Feed Lite, not WooCommerce
 *   "Quick Gallery Grid 1.8.0 by Team Rocket"           credits Quick Gallery Grid (Team Rocket is its author)
 *
 * A version belongs to the name it follows: "Analytics by WP Statistics v14.6.4" credits
 * WP Statistics, "Simple Events Calendar 1.3.5 by Eventful" credits Simple Events Calendar.
 *
 * docs/detection.md, "Whose name a credit is".
 */

/** A word as its letters: brackets, quotes and punctuation at its ends dropped, lower case. */
export function bare(word: string | undefined): string {
  return (word ?? "")
    .replace(/^[([{"'\u201c\u2018]+/, "")
    .replace(/[)\]}"'\u201d\u2019.,;:!?]+$/, "")
    .toLowerCase();
}

/** A word that ends with punctuation closes whatever name it is part of ("Foo Gallery." / "Foo,"). */
const CLOSES = /[.,;:!?)\]}|]$/;

/** Words after which a name is the one another plugin is made for, needs or works with. */
const HOST_BEFORE = new Set(["for", "requires", "require", "required", "needs", "need", "extends", "extending"]);
/** "… with Y", when what comes before says Y is what the plugin works with, not what made it. */
export const WORKS_WITH = new Set([
  "compatible",
  "compatibility",
  "works",
  "working",
  "integrates",
  "integrated",
  "integration",
  "integrating",
  "tested",
  "used",
  "together",
  "along",
]);
/** Verbs of a credit before "by"/"with": "Powered by Y", "served in 0.2 s by Y" credit Y. */
export const CREDIT_VERB =
  /^(?:powered|optimi[sz]ed|generated|cached|created|served|built|minified|compressed|added|delivered|accelerated|protected|secured|managed|made|inserted|tracking|tracked|provided|rendered|enhanced|handled|processed|s|ms|seconds?)$/;

/** Lower-case words that carry a name on ("Foo for Bar", "Foo add-on", "Foo & Bar"). */
const NAME_GOES_ON = new Set([
  "for",
  "add-on",
  "add-ons",
  "addon",
  "addons",
  "extension",
  "extensions",
  "integration",
  "connector",
  "bridge",
  "&",
  "+",
  "x",
]);

/**
 * Words that say what a plugin is after its name, not which one: "breeze CACHE" is Breeze,
 * and "Foo Lite" / "Foo Free" the free edition of Foo (a directory plugin named "Foo Lite" is
 * matched whole first).
 */
const KIND_AFTER = new Set(["cache", "caching", "engine", "lite", "free"]);

/** Written like a name's word: starts with a capital or a digit ("Simple", "WooCommerce", "365"). */
export const NAME_LIKE = /^[([{"']?[A-Z0-9]/;

/**
 * Whether the name starting at `start` is the plugin a credit is made for, needs or works
 * with — not the one credited: after "for", "requires", "compatible/works/integrates with".
 */
export function hostMarked(words: readonly string[], start: number): boolean {
  if (start < 1) return false;
  const before = bare(words[start - 1]);
  if (HOST_BEFORE.has(before)) return true;
  const earlier = words[start - 2];
  if (before === "with") return WORKS_WITH.has(bare(earlier));
  return false;
}

/**
 * Whether the word before `start` belongs to the same name, so that the words from `start`
 * are only the end of a longer one: "Simple Events Calendar" is not "Events Calendar"
 * (resolve.ts still takes such an end when it spells the plugin's slug in two words or more:
 * "Smash Balloon Custom Facebook Feed" → custom-facebook-feed, a vendor before its product).
 */
export function longerNameBefore(words: readonly string[], start: number, from = 0): boolean {
  if (start <= from) return false;
  const before = words[start - 1] ?? "";
  return NAME_LIKE.test(before) && !CLOSES.test(before) && !/^\d[\d.]*$/.test(bare(before));
}

/**
 * Whether the word at `at` carries on the name that ends before it, so that the name is only
 * the start of a longer one: "WooCommerce Stripe Gateway", "WPML Multilingual Forms",
 * "Foo for Elementor", "Foo add-on". A version, a filler, a lower-case word, punctuation or
 * the end of the text close the name.
 */
export function longerNameAfter(
  words: readonly string[],
  at: number,
  isVersion: (word: string | undefined) => boolean,
  isFiller: (word: string | undefined) => boolean,
): boolean {
  const last = words[at - 1] ?? "";
  const next = words[at];
  if (next === undefined || CLOSES.test(last)) return false;
  if (isVersion(next) || isFiller(next) || /^[([]?v(?:er(?:sion)?)?[.:]?\d/i.test(next)) return false;
  if (NAME_GOES_ON.has(bare(next))) return true;
  if (KIND_AFTER.has(bare(next))) return false;
  return NAME_LIKE.test(next) && !/^[([{]/.test(next);
}
