/**
 * CLI parity (docs/ci.md): every input of action.yml is a flag of `wpreport check` under the
 * same name, and every flag that says it is an input is one — read from action.yml and the
 * CLI's own flag table, so a new input without its flag (or a flag for an input that is gone)
 * fails here. The inputs that only make sense on GitHub are listed with their reason.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";
import { ACTION_ONLY_INPUTS, FLAGS, main } from "../../action/src/cli.ts";
import { ROOT } from "../helpers/processes.ts";

const metadata = Bun.YAML.parse(readFileSync(path.join(ROOT, "action.yml"), "utf8")) as {
  inputs: Record<string, unknown>;
};
const inputs = Object.keys(metadata.inputs).sort();
const flagInputs = FLAGS.filter((flag) => flag.input).map((flag) => flag.name);

describe("the CLI has a flag for every Action input", () => {
  test("action.yml's inputs = the CLI's input flags + the GitHub-only inputs, each with its reason", () => {
    expect([...flagInputs, ...Object.keys(ACTION_ONLY_INPUTS)].sort()).toEqual(inputs);
    for (const reason of Object.values(ACTION_ONLY_INPUTS)) expect(reason.length).toBeGreaterThan(20);
    // No flag is there twice, and none is both.
    expect(new Set(flagInputs).size).toBe(flagInputs.length);
    expect(flagInputs.filter((name) => name in ACTION_ONLY_INPUTS)).toEqual([]);
  });

  test("the help names every flag, and docs/ci.md documents every input flag", async () => {
    let help = "";
    expect(
      await main(
        ["--help"],
        {},
        (text) => (help = text),
        () => {},
      ),
    ).toBe(0);
    const docs = readFileSync(path.join(ROOT, "docs/ci.md"), "utf8");
    for (const flag of FLAGS) {
      expect(help).toContain(`--${flag.name}`);
      if (flag.input) expect(docs).toContain(`\`--${flag.name}`);
    }
  });

  test("a flag is read as its input: --urls, repeated or comma-separated; a bad value is named by its flag (exit 2)", async () => {
    const env = { WPREPORT_API_URL: "http://127.0.0.1:9", WPREPORT_TOKEN: "wpr_x" };
    const run = async (args: string[]) => {
      const said: string[] = [];
      const code = await main(
        ["check", ...args],
        env,
        () => {},
        (text) => said.push(text),
      );
      return { code, said: said.join("\n") };
    };
    const both = await run(["--url", "https://a.example/", "--urls", "https://b.example/"]);
    expect(both.code).toBe(2);
    expect(both.said).toStartWith("Give either --url (one site) or --urls (several), not both");
    const twice = await run(["--urls", "https://a.example/,https://a.example/"]);
    expect(twice.said).toStartWith("--urls names https://a.example/ twice");
    const tooMany = await run(Array.from({ length: 21 }, (_, i) => ["--urls", `https://s${i}.example/`]).flat());
    expect(tooMany.said).toStartWith("--urls takes at most 20 sites, got 21");
    expect((await run(["--url", "https://a.example/", "--wait-for-site", "9999"])).said).toStartWith(
      '--wait-for-site must be a number from 0 to 3600, got "9999"',
    );
    const credentials = await run(["--urls", "https://a.example/,https://b.example/", "--http-auth", "u:p"]);
    expect(credentials.said).toStartWith(
      "--http-auth, --http-headers and --http-cookies are one site's credentials, but --urls name 2 origins",
    );
    expect(credentials.said).not.toContain("u:p");
    const noService = await main(
      ["check", "--url", "https://a.example/"],
      {},
      () => {},
      () => {},
    );
    expect(noService).toBe(2);
  });
});
