/** Component audits (core, theme, plugins, PHP), in report order. */
import type { Audit } from "../types.ts";
import { auditCore } from "./core.ts";
import { auditPhp } from "./php.ts";
import { auditPluginReadmes } from "./plugin-readmes.ts";
import { auditPlugins } from "./plugins.ts";
import { auditTheme } from "./theme.ts";

export const COMPONENT_AUDITS: readonly Audit[] = [auditCore, auditPlugins, auditTheme, auditPhp, auditPluginReadmes];
