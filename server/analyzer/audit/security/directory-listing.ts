/**
 * Directory listings: a folder that answers with "Index of /…" shows every file in it —
 * uploads nobody linked, backups, plugin files whose versions give away known bugs.
 */
import { siteUrl } from "../../untrusted-text.ts";
import { makeCheck } from "../catalogue.ts";
import type { Audit } from "../types.ts";

export const auditDirectoryListing: Audit = ({ security, artifacts }) => {
  const id = "security.directory_listing";
  if (security.directory_listing.length > 0) {
    return [
      makeCheck(
        id,
        "fail",
        security.directory_listing.length === 1
          ? "A directory lists its files to anyone."
          : `${security.directory_listing.length} directories list their files to anyone.`,
        security.directory_listing,
      ),
    ];
  }
  // The uploads folder is the one probed for this; the exposed-file probes add others.
  const uploads = artifacts.probes.uploads;
  if (!uploads) return [makeCheck(id, "error", "The uploads directory could not be requested (see errors).")];
  return [
    makeCheck(id, "pass", "The uploads directory does not list its files.", [
      `${siteUrl(uploads.url)} → ${uploads.status}`,
    ]),
  ];
};
