/** Transport security of the homepage: is the final page served over HTTPS? */
import { makeCheck } from "../catalogue.ts";
import type { Audit } from "../types.ts";

export const auditTransport: Audit = ({ artifacts }) => {
  const finalUrl = new URL(artifacts.homepage.url);
  if (finalUrl.protocol === "https:") {
    return [makeCheck("security.https", "pass", "The homepage is served over HTTPS.", [artifacts.homepage.url])];
  }
  return [
    makeCheck(
      "security.https",
      "fail",
      "The homepage is served over plain HTTP; visitors' traffic and logins can be read and altered.",
      [artifacts.homepage.url],
    ),
  ];
};
