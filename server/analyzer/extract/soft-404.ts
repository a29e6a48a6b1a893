/**
 * Did a probe find something, or did the site answer "nothing here" in disguise? Many
 * sites answer unknown paths with 200 and their homepage or a themed 404 page. A probe
 * that answers like the site's 404 fingerprint (a random path) or like the homepage found
 * nothing, whatever its status code.
 */
import type { Artifacts, HttpArtifact } from "../artifacts.ts";
import { pageOf } from "../parse/page.ts";

function similar(a: HttpArtifact, b: HttpArtifact): boolean {
  if (a.status !== b.status) return false;
  const titleA = pageOf(a).title;
  const titleB = pageOf(b).title;
  if (titleA && titleB && titleA === titleB) return true;
  const lengthA = a.body.length;
  const lengthB = b.body.length;
  return (
    Math.abs(lengthA - lengthB) <= Math.max(200, 0.05 * Math.max(lengthA, lengthB)) &&
    a.body.slice(0, 200) === b.body.slice(0, 200)
  );
}

/** True when `answer` means "not found": a 404/410, or a page like the 404 fingerprint or the homepage. */
export function looksLikeNotFound(answer: HttpArtifact | undefined, artifacts: Artifacts): boolean {
  if (!answer) return true;
  if (answer.status === 404 || answer.status === 410) return true;
  const fingerprint = artifacts.probes.not_found;
  if (fingerprint && fingerprint.status === answer.status && similar(answer, fingerprint)) return true;
  return answer.status === artifacts.homepage.status && similar(answer, artifacts.homepage);
}

/** True when the body is an HTML document (not the text file a probe hoped for). */
export function isHtml(answer: HttpArtifact): boolean {
  return (
    /^\s*(<!doctype html|<html|<head|<body)/i.test(answer.body.slice(0, 500)) ||
    (answer.headers["content-type"] ?? "").includes("text/html")
  );
}
