/**
 * action.yml declares exactly the inputs the Action reads and the outputs it sets, and
 * docs/action.md documents exactly those.
 */
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
/** The names in the first column of a table under a heading of docs/action.md ("`score`, `grade`" names two). */
const action = readFileSync(path.join(ROOT, "docs/action.md"), "utf8");
function documented(heading: string): string[] {
  const start = action.indexOf(`\n## ${heading}\n`);
  if (start < 0) return [];
  const end = action.indexOf("\n## ", start + 1);
  const section = action.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/^\| ((?:`[a-z-]+`(?:, )?)+) \|/gm)]
    .flatMap((row) => [...(row[1] as string).matchAll(/`([a-z-]+)`/g)].map((name) => name[1] as string))
    .sort();
}
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

  test("docs/action.md's tables list exactly the declared inputs and outputs", () => {
    expect(documented("Action inputs")).toEqual(Object.keys(metadata.inputs).sort());
    expect(documented("Action outputs")).toEqual(Object.keys(metadata.outputs).sort());
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
