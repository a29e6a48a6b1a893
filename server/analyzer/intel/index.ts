/** Component intelligence (docs/intel.md): the data model, applying it to detected components, version maths. */
export { applyIntel, assessComponent } from "./apply.ts";
export { severityFromCvss } from "./cvss.ts";
export {
  emptyIntel,
  FILE_SOURCE_ID,
  INTEL_FORMAT,
  type Intel,
  type IntelComponent,
  IntelDataError,
  type IntelVulnerability,
  loadIntel,
  parseIntel,
} from "./data.ts";
export { type IntelLookup, type IntelQuery, intelQuery } from "./query.ts";
export {
  compareVersions,
  describeRange,
  firstFix,
  inRange,
  isDataVersion,
  parseVersion,
  type VersionRange,
} from "./versions.ts";
