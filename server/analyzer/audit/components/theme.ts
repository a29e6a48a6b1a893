/**
 * The active theme and, for a child theme, its parent: the parent's code runs on every page
 * too, so its updates and vulnerabilities count the same.
 */
import type { Audit } from "../types.ts";
import { type Assessable, assessComponents } from "./assess.ts";

export const auditTheme: Audit = ({ theme, intel }) => {
  const themes: Assessable[] = [];
  if (theme) {
    themes.push({ ...theme, name: theme.slug });
    if (theme.parent) themes.push({ ...theme.parent, name: `${theme.parent.slug} (parent theme)` });
  }
  return assessComponents(
    {
      outdated: "components.theme_outdated",
      vulnerable: "components.theme_vulnerable",
      plural: "themes",
      type: "theme",
    },
    themes,
    "No theme was detected.",
    intel,
  );
};
