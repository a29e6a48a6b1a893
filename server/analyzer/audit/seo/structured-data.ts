/** schema.org structured data: present, and every JSON-LD block parses. */
import { siteText } from "../../untrusted-text.ts";
import { makeCheck } from "../catalogue.ts";
import type { Audit } from "../types.ts";

/** parse/page.ts keeps at most this many characters of an inline script: a longer block is cut, not broken. */
const INLINE_SCRIPT_CAP = 100_000;

export const auditStructuredData: Audit = ({ seo, homepage }) => {
  const types = seo.structured_data_types;
  // The facts skip JSON-LD that doesn't parse (extract/seo.ts leaves reporting it to an
  // audit); search engines ignore such a block entirely, so it is worth naming.
  const invalid = homepage.page.scripts
    .filter((script) => (script.attrs.type ?? "").trim().toLowerCase() === "application/ld+json")
    .flatMap((script, index) => {
      if (script.text.length >= INLINE_SCRIPT_CAP) return [];
      try {
        JSON.parse(script.text);
        return [];
      } catch {
        const id = script.attrs.id ? ` id="${siteText(script.attrs.id, 80)}"` : "";
        return [`JSON-LD block ${index + 1}${id}: ${siteText(script.text, 120) || "(empty)"}`];
      }
    });
  const evidence = types.map((type) => `@type: ${type}`);
  if (invalid.length > 0) {
    return [
      makeCheck(
        "seo.structured_data",
        "fail",
        `${invalid.length === 1 ? "A JSON-LD block" : `${invalid.length} JSON-LD blocks`} on the homepage ${invalid.length === 1 ? "is" : "are"} not valid JSON, so search engines ignore ${invalid.length === 1 ? "it" : "them"}.`,
        [...invalid, ...evidence],
      ),
    ];
  }
  if (types.length === 0) {
    return [
      makeCheck(
        "seo.structured_data",
        "warn",
        "The homepage has no schema.org structured data (JSON-LD or microdata) describing the site.",
      ),
    ];
  }
  return [
    makeCheck(
      "seo.structured_data",
      "pass",
      `The homepage has structured data of ${types.length === 1 ? "type" : "types"} ${types.slice(0, 5).join(", ")}${types.length > 5 ? ", …" : ""}.`,
      evidence,
    ),
  ];
};
