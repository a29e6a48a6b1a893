/**
 * What the Action says to the runner: the part of @actions/core that run(), inputs.ts and
 * annotations.ts use, behind one small interface, so that run() can be tested in-process with
 * a fake (test/action/run.test.ts) besides end to end as the runner runs it.
 */
import * as core from "@actions/core";

export interface ActionCore {
  getInput(name: string, options?: { required?: boolean }): string;
  setSecret(secret: string): void;
  info(message: string): void;
  warning(message: string, properties?: core.AnnotationProperties): void;
  error(message: string, properties?: core.AnnotationProperties): void;
  notice(message: string, properties?: core.AnnotationProperties): void;
  setOutput(name: string, value: string): void;
  setFailed(message: string): void;
  /** Appends markdown to the job summary. */
  writeSummary(markdown: string): Promise<void>;
}

export const actionsCore: ActionCore = {
  getInput: core.getInput,
  setSecret: core.setSecret,
  info: core.info,
  warning: core.warning,
  error: core.error,
  notice: core.notice,
  setOutput: core.setOutput,
  setFailed: core.setFailed,
  writeSummary: async (markdown) => {
    await core.summary.addRaw(markdown, true).write();
  },
};
