/** Which SEO plugin (if any) manages the tags; informational. */
import { makeCheck } from "../catalogue.ts";
import type { Audit } from "../types.ts";

export const auditSeoPlugin: Audit = ({ seo, wordpress }) => {
  if (!wordpress.detected) {
    return [makeCheck("seo.seo_plugin", "skip", "The site does not look like WordPress.")];
  }
  if (seo.seo_plugin) {
    return [
      makeCheck("seo.seo_plugin", "pass", `${seo.seo_plugin} manages the site's SEO tags.`, [
        `plugin: ${seo.seo_plugin}`,
      ]),
    ];
  }
  return [
    makeCheck(
      "seo.seo_plugin",
      "warn",
      "No SEO plugin was detected (one that leaves no trace in the homepage would not be seen). Without one, WordPress prints no meta description, social tags or structured data.",
    ),
  ];
};
