/** Component intelligence (docs/intel.md): the data model, applying it to detected components, version maths. */
export { applyIntel, assessComponent } from "./apply.ts";
export { severityFromCvss } from "./cvss.ts";
export {
  COMPLETE_COVERAGE,
  emptyIntel,
  FILE_SOURCE_ID,
  INTEL_FORMAT,
  type Intel,
  type IntelComponent,
  IntelDataError,
  type IntelFile,
  type IntelVulnerability,
  loadIntel,
  NO_VULNERABILITY_SOURCE,
  parseIntel,
  readIntelFile,
} from "./data.ts";
export { coreVersionForLookup, type IntelLookup, type IntelQuery, intelQuery } from "./query.ts";
export {
  compareVersions,
  describeRange,
  firstFix,
  inRange,
  isDataVersion,
  parseVersion,
  type VersionRange,
} from "./versions.ts";
