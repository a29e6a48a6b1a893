/** Component audits (core, theme, plugins), in report order. */
import type { Audit } from "../types.ts";

export const COMPONENT_AUDITS: readonly Audit[] = [];
