/**
 * The lab's devices and throttling, with Lighthouse's figures (its `constants.js`): a mid-range
 * phone (Moto G Power, 412×823 at DPR 1.75) on slow 4G with a 4× slower CPU by default, or a
 * desktop at 1350×940 on a fast cable line. `none` applies no throttling at all (CI on a fast
 * network, and the tests). The network figures are applied by Chromium itself (CDP
 * Network.emulateNetworkConditions), not simulated afterwards as Lighthouse's default does:
 * docs/report.md, "Lab".
 */
import type { LabDevice, LabThrottling, LabThrottlingUsed } from "../../../shared/report.ts";

export interface DeviceSettings {
  viewport: { width: number; height: number };
  deviceScaleFactor: number;
  isMobile: boolean;
  hasTouch: boolean;
  /** The User-Agent's platform part; the browser's version and our name are added (lab-run.ts). */
  platform: string;
}

export const DEVICES: Record<LabDevice, DeviceSettings> = {
  mobile: {
    viewport: { width: 412, height: 823 },
    deviceScaleFactor: 1.75,
    isMobile: true,
    hasTouch: true,
    platform: "Linux; Android 11; moto g power (2022)",
  },
  desktop: {
    viewport: { width: 1350, height: 940 },
    deviceScaleFactor: 1,
    isMobile: false,
    hasTouch: false,
    platform: "X11; Linux x86_64",
  },
};

/** Lighthouse's throttling figures per device (mobileSlow4G and desktopDense4G). */
const LIGHTHOUSE: Record<LabDevice, LabThrottlingUsed> = {
  mobile: { cpu_slowdown: 4, rtt_ms: 150, download_kbps: 1638.4, upload_kbps: 750 },
  desktop: { cpu_slowdown: 1, rtt_ms: 40, download_kbps: 10240, upload_kbps: 10240 },
};

const NONE: LabThrottlingUsed = { cpu_slowdown: 1, rtt_ms: 0, download_kbps: null, upload_kbps: null };

export function throttlingFor(device: LabDevice, throttling: LabThrottling): LabThrottlingUsed {
  return throttling === "none" ? NONE : LIGHTHOUSE[device];
}
