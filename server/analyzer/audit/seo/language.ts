/**
 * Language tags: is "en-US" a real language (and region)? The language and region lists
 * come from the runtime's ICU data through Intl.DisplayNames, so "jp" (not a language code;
 * Japanese is "ja") is told from "ja" without a table of our own.
 */
const languages = new Intl.DisplayNames(["en"], { type: "language", fallback: "none" });
const regions = new Intl.DisplayNames(["en"], { type: "region", fallback: "none" });

function known(names: Intl.DisplayNames, code: string): boolean {
  try {
    return names.of(code) !== undefined;
  } catch {
    return false; // not even well-formed
  }
}

/** Why `tag` is not a valid BCP 47 language tag for <html lang>, or null when it is. */
export function langProblem(tag: string): string | null {
  try {
    Intl.getCanonicalLocales(tag);
  } catch {
    return "is not a well-formed language tag (BCP 47, e.g. en-US — with a hyphen, not an underscore)";
  }
  const language = tag.split("-")[0] ?? "";
  return known(languages, language.toLowerCase()) ? null : `starts with "${language}", which is not a language code`;
}

/**
 * hreflang is narrower: ISO 639-1 language, optional script, optional ISO 3166-1 alpha-2
 * region, or x-default (Google Search Central, "Localized versions of your pages").
 */
const HREFLANG = /^([a-z]{2,3})(?:-([a-z]{4}))?(?:-([a-z]{2}|\d{3}))?$/i;

/** Why `tag` is not a usable hreflang value, or null when it is. */
export function hreflangProblem(tag: string): string | null {
  if (tag.toLowerCase() === "x-default") return null;
  const match = HREFLANG.exec(tag);
  if (!match) return "is not language[-region], e.g. en or en-GB";
  const [, language = "", , region] = match;
  if (!known(languages, language.toLowerCase())) return `"${language}" is not a language code`;
  // ICU knows "UK" as an alias, but the ISO 3166-1 code of the United Kingdom is GB.
  if (region && (region.toUpperCase() === "UK" || !known(regions, region.toUpperCase()))) {
    return `"${region}" is not a region code${region.toUpperCase() === "UK" ? " (the United Kingdom is GB)" : ""}`;
  }
  return null;
}
