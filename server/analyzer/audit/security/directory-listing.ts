/**
 * Directory listings: a folder that answers with "Index of /…" shows every file in it —
 * uploads nobody linked, backups, and in plugins/ and themes/ every installed component,
 * active or not, whose versions give away known bugs. Each listed folder is named in the
 * evidence with what it shows.
 */
import type { ListedDirectory } from "../../facts.ts";
import { siteText, siteUrl } from "../../untrusted-text.ts";
import { makeCheck } from "../catalogue.ts";
import { notCheckedCheck, obstaclesFor } from "../obstacles.ts";
import { unreachedReason } from "../placement.ts";
import type { Audit } from "../types.ts";

/** Entry names quoted per listed folder; the count says the rest. */
const NAMES_SHOWN = 15;
/** The folders probed for this check, besides the exposed-file probes. */
const FOLDER_PROBES = ["uploads", "plugins_listing", "themes_listing"] as const;
/** Where each of them belongs in the content directory. */
const FOLDER_PATHS = { uploads: "uploads/", plugins_listing: "plugins/", themes_listing: "themes/" } as const;

/** "…/wp-content/plugins/ lists 3 entries: akismet/, hello.php, xrds-simple/" for a listed URL. */
function describeListing({ url, listing }: ListedDirectory): string {
  if (!listing || listing.entries.length === 0) return `${url} lists its files`;
  const names = listing.entries.slice(0, NAMES_SHOWN).map((entry) => `${entry.name}${entry.directory ? "/" : ""}`);
  const count = `${listing.entries.length}${listing.capped ? "+" : ""}`;
  const more = listing.entries.length > NAMES_SHOWN || listing.capped ? ", …" : "";
  return `${url} lists ${count} entries: ${siteText(names.join(", "), 600)}${more}`;
}

export const auditDirectoryListing: Audit = ({ security, probes, listedDirectories, paths }) => {
  const id = "security.directory_listing";
  if (security.directory_listing.length > 0) {
    return [
      makeCheck(
        id,
        "fail",
        security.directory_listing.length === 1
          ? "A directory lists its files to anyone."
          : `${security.directory_listing.length} directories list their files to anyone.`,
        listedDirectories.map(describeListing),
      ),
    ];
  }
  // A folder answered by a challenge or an error lists nothing we could see (audit/obstacles.ts).
  const obstacles = obstaclesFor(id, probes);
  if (obstacles.length > 0) return [notCheckedCheck(id, obstacles)];
  // The uploads, plugins and themes folders are probed for this; the exposed-file probes add others.
  if (!probes.answers.uploads)
    return [makeCheck(id, "error", "The uploads directory could not be requested (see errors).")];
  const answered = FOLDER_PROBES.filter((key) => probes.answers[key]);
  const seen = answered.map((key) => `${siteUrl(probes.answers[key]?.url)} → ${probes.answers[key]?.status}`);
  // Folders that are not where the content directory is list nothing, whatever the real ones do.
  const unreached = unreachedReason(
    paths,
    "content",
    answered.map((key) => [probes.answers[key], FOLDER_PATHS[key]] as const),
  );
  if (unreached) {
    return [
      makeCheck(id, "skip", `Whether the content directory's folders list their files is unknown: ${unreached}.`, seen),
    ];
  }
  const names = answered.map((key) => key.replace(/_listing$/, ""));
  const message =
    names.length === 1
      ? "The uploads directory does not list its files."
      : `The ${names.slice(0, -1).join(", ")} and ${names.at(-1)} directories do not list their files.`;
  return [makeCheck(id, "pass", message, seen)];
};
