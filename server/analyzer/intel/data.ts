/**
 * Component intelligence: the newest versions of WordPress core, plugins and themes and
 * their known vulnerabilities, read from a JSON data file (format: docs/intel.md).
 *
 * Loading is strict. A typo such as `"fixedin"` silently ignored would turn a fixed
 * vulnerability into an unfixed one and flag every site, so unknown fields, malformed
 * versions and impossible ranges are refused with the path of the bad value.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import {
  type IntelSource,
  type LatestVersionReason,
  SEVERITIES,
  type Severity,
  type VulnerabilityData,
} from "../../../shared/report.ts";
import { SLUG } from "./query.ts";
import { compareVersions, isDataVersion, type VersionRange } from "./versions.ts";

export const INTEL_FORMAT = 1;

export interface IntelVulnerability {
  id: string;
  title: string;
  severity: Severity;
  cvss: number | null;
  cvss_rating: string | null;
  cvss_vector: string | null;
  cve: string[];
  /** One range per release branch: core backports fixes (6.4.2 and 6.1.5 both fix one issue). */
  affected: VersionRange[];
  /** Versions that carry the fix (the file's fixed_in values; Wordfence's patched_versions). */
  patched: string[];
  references: string[];
  /** The intel source that reported it: `file`, `wordfence`, `wpvulnerability`. */
  source: string;
  /** Ids the advisory has in other databases (a Wordfence or WPScan id WPVulnerability lists): how two sources' entries are matched. */
  aliases?: string[];
  /** Every source that reported it, `source` first (one advisory from two sources is one entry). */
  sources?: string[];
  /**
   * True when the source says no fixed release exists; false when one does, even if it names
   * no version (WPVulnerability's core answers). Absent: no patched version means unfixed.
   */
  unfixed?: boolean;
}

export interface IntelComponent {
  /** Newest release, or null with the reason. */
  latest_version: string | null;
  latest_version_reason: LatestVersionReason | null;
  vulnerabilities: IntelVulnerability[];
}

export interface Intel {
  /** When the data was produced (YYYY-MM-DD), as the file states; informational. */
  updated: string | null;
  wordpress: IntelComponent | null;
  /** By slug, lower case. Maps, not objects: a slug such as `constructor` must not find Object's. */
  plugins: ReadonlyMap<string, IntelComponent>;
  themes: ReadonlyMap<string, IntelComponent>;
  /**
   * True when a vulnerability source is loaded: a component it has no advisory for then has
   * no known vulnerabilities. False: nothing can be said (the checks skip).
   */
  vulnerabilityData: boolean;
  /**
   * Which detected components no vulnerability source checked, and what the report says about
   * it (`intel.vulnerability_data`): the checks skip those, and every reader shows the notice.
   */
  coverage: VulnerabilityData;
  /** Where the data came from, for the report (with the attribution each source requires). */
  sources: IntelSource[];
}

export class IntelDataError extends Error {
  override name = "IntelDataError";
}

/** What a report without any vulnerability source says, unless the caller knows better. */
export const NO_VULNERABILITY_SOURCE =
  "No vulnerability data source was consulted for this report: the known vulnerabilities of its components are unknown, and an empty list does not mean there are none.";

/** No data: every component keeps latest_version/outdated null and no vulnerabilities. */
export function emptyIntel(message = NO_VULNERABILITY_SOURCE): Intel {
  return {
    updated: null,
    wordpress: null,
    plugins: new Map(),
    themes: new Map(),
    vulnerabilityData: false,
    coverage: { status: "none", message, unchecked: [] },
    sources: [],
  };
}

/** Every component checked (a file, or the full Wordfence feed, covers them all). */
export const COMPLETE_COVERAGE: VulnerabilityData = { status: "complete", message: null, unchecked: [] };

/** The source row a data file stands for in a report. */
export const FILE_SOURCE_ID = "file";

/** A data file as read: its content, validated, and the SHA-256 of its text (an import of the file already served is skipped). */
export interface IntelFile {
  intel: Intel;
  sha256: string;
}

/**
 * The one reader of intel data files — INTEL_FILE at start-up and `intel import` (both through
 * intel/importer.ts), the tests and scripts: reads, parses and validates the whole file; throws
 * IntelDataError naming the file and what is wrong (unreadable, not JSON, the bad value's path).
 */
export function readIntelFile(path: string): IntelFile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new IntelDataError(`intel data ${path}: cannot be read (${(error as Error).message})`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new IntelDataError(`intel data ${path}: not valid JSON (${(error as Error).message})`);
  }
  const intel = parseIntel(data, `intel data ${path}`);
  return { intel, sha256: createHash("sha256").update(text).digest("hex") };
}

/** readIntelFile's content alone. */
export function loadIntel(path: string): Intel {
  return readIntelFile(path).intel;
}

const CVE = /^CVE-\d{4}-\d{4,}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

type Json = Record<string, unknown>;

/** Validates already-parsed JSON; `source` starts every error message. */
export function parseIntel(data: unknown, source = "intel data"): Intel {
  const fail = (path: string, message: string): never => {
    throw new IntelDataError(`${source}: ${path}: ${message}`);
  };
  const object = (value: unknown, path: string, allowed: readonly string[]): Json => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) fail(path, "must be an object");
    const record = value as Json;
    for (const key of Object.keys(record)) {
      if (!allowed.includes(key)) fail(path, `unknown field "${key}" (allowed: ${allowed.join(", ")})`);
    }
    return record;
  };
  const text = (value: unknown, path: string, max: number): string => {
    if (typeof value !== "string" || value.trim() === "") fail(path, "must be a non-empty string");
    if ((value as string).length > max) fail(path, `must be at most ${max} characters`);
    return value as string;
  };
  const version = (value: unknown, path: string): string => {
    if (typeof value !== "string" || !isDataVersion(value)) {
      fail(path, `must be a version such as "6.4.2" or "5.0" (got ${JSON.stringify(value)})`);
    }
    return value as string;
  };
  const optionalVersion = (value: unknown, path: string): string | null =>
    value === undefined || value === null ? null : version(value, path);
  const list = <T>(value: unknown, path: string, item: (entry: unknown, path: string) => T): T[] => {
    if (value === undefined) return [];
    if (!Array.isArray(value)) fail(path, "must be an array");
    return (value as unknown[]).map((entry, index) => item(entry, `${path}[${index}]`));
  };

  const range = (value: unknown, path: string): VersionRange & { fixed_in: string | null } => {
    const record = object(value, path, ["introduced", "fixed_in", "last_affected"]);
    const introduced = optionalVersion(record.introduced, `${path}.introduced`);
    const fixedIn = optionalVersion(record.fixed_in, `${path}.fixed_in`);
    const lastAffected = optionalVersion(record.last_affected, `${path}.last_affected`);
    if (fixedIn && lastAffected) fail(path, "give fixed_in or last_affected, not both");
    if (introduced && fixedIn && (compareVersions(introduced, fixedIn) ?? 0) >= 0) {
      fail(path, `introduced (${introduced}) must be older than fixed_in (${fixedIn})`);
    }
    if (introduced && lastAffected && (compareVersions(introduced, lastAffected) ?? 0) > 0) {
      fail(path, `introduced (${introduced}) must not be newer than last_affected (${lastAffected})`);
    }
    // [introduced, fixed_in) or [introduced, last_affected]; fixed_in is kept as a patched version.
    return {
      from: introduced,
      from_inclusive: true,
      to: fixedIn ?? lastAffected,
      to_inclusive: fixedIn === null,
      fixed_in: fixedIn,
    };
  };

  const vulnerability = (value: unknown, path: string): IntelVulnerability => {
    const record = object(value, path, ["id", "title", "severity", "cvss", "cve", "affected", "references"]);
    const severity = record.severity;
    if (typeof severity !== "string" || !SEVERITIES.includes(severity as Severity)) {
      fail(`${path}.severity`, `must be one of ${SEVERITIES.join(", ")}`);
    }
    const cvss = record.cvss ?? null;
    if (cvss !== null && (typeof cvss !== "number" || !(cvss >= 0 && cvss <= 10))) {
      fail(`${path}.cvss`, "must be a number from 0 to 10, or null");
    }
    const ranges = list(record.affected, `${path}.affected`, range);
    if (ranges.length === 0) fail(`${path}.affected`, "must list at least one version range");
    return {
      id: text(record.id, `${path}.id`, 100),
      title: text(record.title, `${path}.title`, 300),
      severity: severity as Severity,
      cvss: cvss as number | null,
      cvss_rating: null,
      cvss_vector: null,
      cve: list(record.cve, `${path}.cve`, (entry, at) => {
        if (typeof entry !== "string" || !CVE.test(entry)) fail(at, 'must be a CVE id such as "CVE-2024-12345"');
        return entry as string;
      }),
      affected: ranges.map(({ from, from_inclusive, to, to_inclusive }) => ({
        from,
        from_inclusive,
        to,
        to_inclusive,
      })),
      patched: ranges.flatMap((entry) => (entry.fixed_in === null ? [] : [entry.fixed_in])),
      references: list(record.references, `${path}.references`, (entry, at) => {
        const url = text(entry, at, 2048);
        if (!/^https?:\/\//i.test(url)) fail(at, "must be an http(s) URL");
        return url;
      }),
      source: FILE_SOURCE_ID,
    };
  };

  const component = (value: unknown, path: string): IntelComponent => {
    const record = object(value, path, ["latest_version", "vulnerabilities"]);
    const vulnerabilities = list(record.vulnerabilities, `${path}.vulnerabilities`, vulnerability);
    const ids = new Set<string>();
    for (const [index, entry] of vulnerabilities.entries()) {
      if (ids.has(entry.id)) fail(`${path}.vulnerabilities[${index}].id`, `duplicate id "${entry.id}"`);
      ids.add(entry.id);
    }
    return {
      latest_version: version(record.latest_version, `${path}.latest_version`),
      latest_version_reason: null,
      vulnerabilities,
    };
  };

  const components = (value: unknown, path: string): Map<string, IntelComponent> => {
    const entries = new Map<string, IntelComponent>();
    if (value === undefined) return entries;
    if (typeof value !== "object" || value === null || Array.isArray(value)) fail(path, "must be an object");
    for (const [slug, entry] of Object.entries(value as Json)) {
      if (!SLUG.test(slug)) fail(`${path}.${slug}`, "slug must be lower case: letters, digits, '.', '_' or '-'");
      entries.set(slug, component(entry, `${path}.${slug}`));
    }
    return entries;
  };

  const root = object(data, "(file)", ["format", "updated", "source", "wordpress", "plugins", "themes"]);
  if (root.format !== INTEL_FORMAT) fail("format", `must be ${INTEL_FORMAT} (got ${JSON.stringify(root.format)})`);
  let updated: string | null = null;
  if (root.updated !== undefined) {
    updated = text(root.updated, "updated", 10);
    if (!DATE.test(updated)) fail("updated", 'must be a date such as "2026-11-20"');
  }
  const description = root.source === undefined ? null : text(root.source, "source", 500);
  if (root.wordpress === undefined) fail("wordpress", "is required (at least its latest_version)");
  return {
    updated,
    wordpress: component(root.wordpress, "wordpress"),
    plugins: components(root.plugins, "plugins"),
    themes: components(root.themes, "themes"),
    vulnerabilityData: true,
    coverage: COMPLETE_COVERAGE,
    sources: [
      {
        id: FILE_SOURCE_ID,
        name: description ?? "Imported intel file",
        as_of: updated,
        attribution: null,
        url: null,
      },
    ],
  };
}
