/**
 * Did a probe reach the place it was meant for? A "not found" is only an answer where the
 * thing would be: xmlrpc.php under WordPress's core directory, debug.log and the folders under
 * its content directory. When nothing on the site showed where those are (the probe went to
 * WordPress's default layout, assumed) or the probe was asked somewhere else, a miss proves
 * nothing, and the check says so with `skip` rather than `pass` — a report that says "safe"
 * because it looked in the wrong place is worse than none. A finding (XML-RPC answering, a
 * listing, a log) stands wherever it was made.
 */
import { placeConfirmed, type SiteBase, type SitePaths } from "../detect/site-paths.ts";
import type { ProbeAnswer } from "../facts.ts";
import { siteUrl } from "../untrusted-text.ts";

const WHAT: Record<Exclude<SiteBase, "home">, string> = {
  core: "WordPress's core directory (wp-includes/, wp-admin/, xmlrpc.php)",
  content: "the content directory (plugins/, themes/, uploads/)",
};

const baseOf = (paths: SitePaths, base: Exclude<SiteBase, "home">) =>
  base === "core" ? paths.coreBase : paths.contentBase;

/**
 * Why answers at `base` prove nothing, or null when they do: the base is confirmed and every
 * answer was asked at its place there (`path`, relative to the base: "xmlrpc.php", "uploads/").
 */
export function unreachedReason(
  paths: SitePaths,
  base: Exclude<SiteBase, "home">,
  answers: readonly (readonly [answer: ProbeAnswer | undefined, path: string])[],
): string | null {
  const where = baseOf(paths, base);
  const elsewhere = answers.find(([answer, path]) => answer && answer.asked !== new URL(path, where).toString());
  if (elsewhere?.[0]) {
    return `it was asked at ${siteUrl(elsewhere[0].asked)}, outside ${WHAT[base]}, which is ${siteUrl(where)}`;
  }
  if (placeConfirmed(paths, base)) return null;
  const inferred = paths.found[base].length > 0;
  return inferred
    ? `${WHAT[base]} was only inferred, as ${new URL(where).pathname}, from the paths of the asset origin serving the site's files, and nothing answered there to confirm it`
    : `nothing on the site showed where ${WHAT[base]} is, so it was looked for at WordPress's default, ${new URL(where).pathname}`;
}
