/** How the homepage looks when shared: Open Graph and X (Twitter) card tags. */
import { makeCheck } from "../catalogue.ts";
import type { Audit } from "../types.ts";

/** The four properties the Open Graph protocol requires of every page (ogp.me, "Basic Metadata"). */
const REQUIRED_OG = ["og:title", "og:type", "og:image", "og:url"] as const;

export const auditSocial: Audit = ({ seo }) => {
  const checks = [];
  const og = seo.open_graph;
  const present = REQUIRED_OG.filter((property) => og[property]);
  const missing = REQUIRED_OG.filter((property) => !og[property]);
  const evidence = present.map((property) => `${property}: ${og[property]}`);
  if (present.length === 0) {
    checks.push(
      makeCheck(
        "seo.open_graph",
        "fail",
        "The homepage has no Open Graph tags: social networks and messengers guess its title and image when it is shared.",
      ),
    );
  } else if (missing.length > 0) {
    checks.push(
      makeCheck("seo.open_graph", "warn", `The homepage's Open Graph tags lack ${missing.join(", ")}.`, [
        ...evidence,
        ...missing.map((property) => `${property}: (missing)`),
      ]),
    );
  } else {
    checks.push(makeCheck("seo.open_graph", "pass", "The homepage has the basic Open Graph tags.", evidence));
  }

  const card = seo.twitter_card["twitter:card"];
  checks.push(
    card
      ? makeCheck("seo.twitter_card", "pass", `The homepage declares an X card (${card}).`, [`twitter:card: ${card}`])
      : makeCheck(
          "seo.twitter_card",
          "warn",
          "The homepage declares no twitter:card, the tag X reads to choose a link's preview card; links to it may be shown without one.",
        ),
  );
  return checks;
};
