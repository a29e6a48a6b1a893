/** Component checks (ids `components.*`): WordPress core, theme and plugins. */
import type { CheckDefinition } from "../types.ts";

export const COMPONENT_CHECKS = {} as const satisfies Record<string, CheckDefinition>;
