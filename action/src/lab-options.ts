/**
 * The lab run's options as the Action's inputs (`lab`, `lab-device`, `lab-throttling`,
 * `lab-runs`) and the CLI's flags (`--lab`, `--lab-device`, `--lab-throttling`, `--lab-runs`)
 * give them: checked here once, sent as generate-report's `lab`, `lab_device`,
 * `lab_throttling` and `lab_runs` (docs/report.md, "Lab").
 */
import { LAB_DEVICES, LAB_THROTTLINGS, type LabDevice, type LabThrottling, MAX_LAB_RUNS } from "../../shared/report.ts";

export interface LabRequest {
  device?: LabDevice;
  throttling?: LabThrottling;
  runs?: number;
}

export class LabOptionsError extends Error {}

/** The raw texts; `names` say what the caller calls each (input or flag) in messages. */
export function parseLabOptions(
  raw: { lab?: string | boolean; device?: string; throttling?: string; runs?: string },
  names: { lab: string; device: string; throttling: string; runs: string },
): LabRequest | undefined {
  const lab = typeof raw.lab === "boolean" ? raw.lab : (raw.lab ?? "").trim().toLowerCase() || "false";
  if (lab !== true && lab !== false && lab !== "true" && lab !== "false")
    throw new LabOptionsError(`${names.lab} must be true or false, got "${raw.lab}".`);
  const device = raw.device?.trim().toLowerCase() || undefined;
  const throttling = raw.throttling?.trim().toLowerCase() || undefined;
  const runsText = raw.runs?.trim() || undefined;
  if (lab === false || lab === "false") {
    const given = [device && names.device, throttling && names.throttling, runsText && names.runs].filter(Boolean);
    if (given.length > 0) throw new LabOptionsError(`${given.join(", ")} only apply with ${names.lab} true.`);
    return undefined;
  }
  if (device !== undefined && !LAB_DEVICES.includes(device as LabDevice))
    throw new LabOptionsError(`${names.device} must be ${LAB_DEVICES.join(" or ")}, got "${raw.device}".`);
  if (throttling !== undefined && !LAB_THROTTLINGS.includes(throttling as LabThrottling))
    throw new LabOptionsError(`${names.throttling} must be ${LAB_THROTTLINGS.join(" or ")}, got "${raw.throttling}".`);
  const runs = runsText === undefined ? undefined : Number(runsText);
  if (runs !== undefined && !(Number.isInteger(runs) && runs >= 1 && runs <= MAX_LAB_RUNS))
    throw new LabOptionsError(`${names.runs} must be a whole number from 1 to ${MAX_LAB_RUNS}, got "${raw.runs}".`);
  return {
    ...(device ? { device: device as LabDevice } : {}),
    ...(throttling ? { throttling: throttling as LabThrottling } : {}),
    ...(runs !== undefined ? { runs } : {}),
  };
}

/** The request body's fields for a lab run (none without one). */
export function labBody(lab: LabRequest | undefined) {
  if (!lab) return {};
  return {
    lab: true,
    ...(lab.device ? { lab_device: lab.device } : {}),
    ...(lab.throttling ? { lab_throttling: lab.throttling } : {}),
    ...(lab.runs !== undefined ? { lab_runs: lab.runs } : {}),
  };
}
