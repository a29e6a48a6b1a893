/**
 * Versions plugins leave in their markup:
 *
 *   <input type="hidden" name="_wpcf7_version" value="5.8.5">      a hidden form field
 *   <div class="foo-bar-widget" data-foo-bar-version="1.2.3">       a data attribute named after the plugin
 *   <div id="foo-bar-app" class="foo-bar" data-version="1.2.3">     a bare data-version on the plugin's element
 *
 * The first two name their owner; a bare `data-version` counts only when the element's id
 * or class is a known plugin's (no slug is inferred from a class name).
 */
import type { PageModel } from "../../parse/page.ts";
import { siteText } from "../../untrusted-text.ts";
import { versionStem } from "./identifiers.ts";
import { strictVersion } from "./name-keys.ts";
import type { Observation } from "./observation.ts";

export function hiddenInputObservations(page: PageModel): Observation[] {
  const found: Observation[] = [];
  for (const [n, input] of page.hiddenInputs.entries()) {
    const name = input.attrs.name ?? input.attrs.id ?? "";
    const stem = name.length <= 80 ? versionStem(name) : undefined;
    const version = stem ? strictVersion(input.attrs.value) : undefined;
    if (!stem || !version) continue;
    found.push({
      source: "hidden_input",
      value: siteText(`<input type="hidden" name="${name}" value="${input.attrs.value ?? ""}">`, 200),
      seen: `input:${n}`,
      version,
      subject: { kind: "identifier", candidates: [stem], mayInfer: true, stems: false },
    });
  }
  return found;
}

export function dataAttributeObservations(page: PageModel): Observation[] {
  const found: Observation[] = [];
  for (const [n, element] of page.versionAttributes.entries()) {
    for (const [attribute, raw] of Object.entries(element.attrs)) {
      if (!attribute.startsWith("data-")) continue;
      const version = strictVersion(raw);
      if (!version) continue;
      const value = siteText(`${attribute}="${raw}"`, 200);
      const seen = `data:${n}`;
      const stem = versionStem(attribute.slice("data-".length));
      if (stem) {
        found.push({
          source: "data_attribute",
          value,
          seen,
          version,
          subject: { kind: "identifier", candidates: [stem], mayInfer: true, stems: false },
        });
        continue;
      }
      // data-version alone: whose element is it?
      const owners = [element.attrs.id ?? "", ...(element.attrs.class ?? "").split(/\s+/).slice(0, 3)].filter((token) =>
        /^[A-Za-z][\w-]{2,80}$/.test(token),
      );
      if (owners.length > 0)
        found.push({
          source: "data_attribute",
          value: siteText(`${owners[0]} ${value}`, 200),
          seen,
          version,
          subject: { kind: "identifier", candidates: owners, mayInfer: false, stems: true },
        });
    }
  }
  return found;
}
