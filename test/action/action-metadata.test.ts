/** action.yml declares exactly the inputs the Action reads and the outputs it sets. */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "../helpers/processes.ts";

const metadata = Bun.YAML.parse(readFileSync(path.join(ROOT, "action.yml"), "utf8")) as {
  inputs: Record<string, { default?: string; required?: boolean }>;
  outputs: Record<string, { description: string }>;
};
const sources = readdirSync(path.join(ROOT, "action/src"))
  .filter((file) => file.endsWith(".ts") && file !== "cli.ts")
  .map((file) => readFileSync(path.join(ROOT, "action/src", file), "utf8"))
  .join("\n");
const namesOf = (call: string) =>
  [
    ...new Set([...sources.matchAll(new RegExp(`${call}\\(\\s*"([a-z-]+)"`, "g"))].map((match) => match[1] as string)),
  ].sort();

describe("action.yml", () => {
  test("every input the Action reads is declared, and every declared input is read", () => {
    expect(Object.keys(metadata.inputs).sort()).toEqual(namesOf("getInput"));
  });

  test("every output the Action sets is declared, and every declared output is set", () => {
    expect(Object.keys(metadata.outputs).sort()).toEqual(namesOf("setOutput"));
  });

  test("url or urls: neither is required by the runner (the Action asks for one of them); baseline defaults to last-passing", () => {
    expect(metadata.inputs.url?.required).toBe(false);
    expect(metadata.inputs.urls?.required).toBe(false);
    expect(metadata.inputs.baseline?.default).toBe("last-passing");
    expect(metadata.inputs["sarif-location"]?.default).toBe("");
  });

  test("the matrix input defaults to the job's matrix (the runner evaluates input defaults with the matrix context)", () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, not a JS template
    expect(metadata.inputs.matrix?.default).toBe("${{ toJSON(matrix) }}");
    expect(metadata.inputs.matrix?.required).toBe(false);
  });
});
