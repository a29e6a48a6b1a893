/** Component intelligence (docs/intel.md): load a data file, apply it to detected components. */
export { applyIntel, assessComponent } from "./apply.ts";
export {
  emptyIntel,
  INTEL_FORMAT,
  type Intel,
  type IntelComponent,
  IntelDataError,
  type IntelRange,
  type IntelVulnerability,
  loadIntel,
  parseIntel,
} from "./data.ts";
export { compareVersions, parseVersion } from "./versions.ts";
