/**
 * What is not a plugin's version, though it sits where one would: the `?ver=` of an asset
 * and the version-shaped words of a file. WordPress appends its own version to a script or
 * style enqueued without one, themes and optimisation plugins stamp every file with a
 * cache buster (a Unix time, a filemtime, a date, a hash, `1`), and a build may leave a
 * placeholder (`0.0.0`). Each of these, taken for the plugin's version, would make a report
 * claim vulnerabilities of a release the site does not run — so they are never versions.
 * docs/detection.md, "Versions from files", lists the rules.
 */
import { isPlausibleComponentVersion } from "./evidence.ts";

/**
 * A date stamp: `YYYY.MM.DD` (one separator throughout) or `YYYYMMDD`, with a real month and
 * day, maybe a time after it. `2021.11` (a calendar version) is not one.
 */
const DATE_STAMP =
  /^(?:19|20)\d\d(?:([._-])(?:0?[1-9]|1[0-2])\1(?:0?[1-9]|[12]\d|3[01])|(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01]))(?:[._-]?\d{1,6})?$/;

/** Why a `?ver=` value is not the plugin's version, or null when it may be. */
export function versionParameterProblem(
  value: string,
  context: {
    /** This site's WordPress version, when known. */
    coreVersion: string | null;
    /**
     * Why this value, shared by several components, is the site's stamp rather than their
     * releases (ver-stamps.ts), or null when nothing shows it is one.
     */
    siteStamp?: string | null;
    /** This plugin's readme.txt states another version, and the value is shared: the readme wins. */
    readmeContradicts?: boolean;
    /** The file's path: a bundled library's file states the library's release. */
    pathname?: string;
  },
): string | null {
  if (!isPlausibleComponentVersion(value)) return "not a version (a hash, a timestamp or a build stamp)";
  if (context.pathname && isBundledLibrary(context.pathname)) return "a file of a library the plugin bundles";
  if (context.coreVersion && value === context.coreVersion)
    return "the WordPress version (what WordPress appends when a plugin gives none)";
  if (/^\d+$/.test(value)) return "a bare number (a cache buster, not a release)";
  if (DATE_STAMP.test(value)) return "a date stamp";
  if (isPlaceholderVersion(value)) return "a placeholder";
  if (context.siteStamp) return `the site's stamp, not a release (${context.siteStamp})`;
  if (context.readmeContradicts)
    return "a value several components share, and this plugin's readme.txt states another version";
  return null;
}

/**
 * A library a plugin bundles, by where it sits or how it is packaged: a library folder
 * (`vendor/`, `lib/`, `node_modules/`, `third-party/`…, or a `common/` package at the
 * plugin's root, as plugin families share one), a jQuery plugin (`jquery.foo.js`), a UMD
 * or Metafizzy-packaged build (`foo.umd.js`, `foo.pkgd.min.js`). Its `?ver=` and its banner
 * are the library's release, not the plugin's.
 */
const BUNDLED =
  /\/(?:vendors?|libs?|librar(?:y|ies)|third[-_]?party|node_modules|bower_components|external|packages)\/|\/plugins\/[^/]+\/common\/|\/jquery\.[^/]*$|\.(?:umd|pkgd)(?:\.min)?\.js$/i;

export function isBundledLibrary(pathname: string): boolean {
  return BUNDLED.test(pathname);
}

/** `0`, `0.0`, `0.0.0`: what package managers and templates start with. */
export function isPlaceholderVersion(value: string): boolean {
  return /^0(?:\.0){0,3}$/.test(value);
}

/** A version a file states: plausible, not a date, not a placeholder. */
export function isFileVersion(value: string): boolean {
  return isPlausibleComponentVersion(value) && !DATE_STAMP.test(value) && !isPlaceholderVersion(value);
}

/**
 * The key versions are grouped by when votes are counted: "1.2" and "1.2.0" are one release
 * (trailing zero parts of a numeric version dropped), "1.2-beta" stays apart.
 */
export function versionKey(version: string): string {
  const lower = version.toLowerCase().replace(/^v/, "");
  if (!/^\d+(?:\.\d+)*$/.test(lower)) return lower;
  const parts = lower.split(".").map((part) => String(Number(part)));
  while (parts.length > 1 && parts.at(-1) === "0") parts.pop();
  return parts.join(".");
}
