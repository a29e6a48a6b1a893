/**
 * Docs whose commands run: every `npm run <script>` the README, CONTRIBUTING.md and docs/ tell a
 * reader to type names a script of package.json, and the admin CLI's commands they show answer
 * `--help` (side-effect free) with exit 0. A renamed script (`cli` became `admin`) that leaves
 * docs behind fails here instead of in a reader's terminal.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const root = path.join(import.meta.dir, "..", "..");
const DOCS = [
  "README.md",
  "CONTRIBUTING.md",
  ...readdirSync(path.join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];
const scripts = (
  JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }
).scripts;

/** `npm run [--silent] <script> [-- args…]` as written in a doc, with where it was found. */
export interface NpmCommand {
  file: string;
  line: number;
  script: string;
  /** What follows `--` up to the end of the command (a code span's end, a `#`, `|` or `)`). */
  args: string[];
}

/** Every npm run command in a markdown text; a `<placeholder>` script name is a pattern, not a command. */
export function npmCommands(file: string, text: string): NpmCommand[] {
  const found: NpmCommand[] = [];
  const lines = text.split("\n");
  for (const [index, line] of lines.entries()) {
    for (const match of line.matchAll(/npm run(?: --silent| -s)* ([A-Za-z0-9:._<>-]+)((?: [^`#|)]*)?)/g)) {
      const script = match[1] as string;
      if (/[<>]/.test(script)) continue;
      const rest = (match[2] ?? "").trim();
      const args = rest.startsWith("-- ") ? rest.slice(3).split(/\s+/).filter(Boolean) : [];
      found.push({ file, line: index + 1, script, args });
    }
  }
  return found;
}

const commands = DOCS.flatMap((file) => npmCommands(file, readFileSync(path.join(root, file), "utf8")));

describe("commands in the docs", () => {
  test("the extractor finds commands in prose, code spans and code blocks, with their arguments", () => {
    const sample = [
      "Run `npm run --silent admin -- token create --email a@b.c` then",
      "```sh",
      "TOKEN=$(npm run --silent admin -- token list --json)   # listing",
      "npm run bench:api",
      "```",
      "and an `npm run bench:<name>` script.",
    ].join("\n");
    expect(npmCommands("x.md", sample).map(({ script, args, line }) => ({ script, args, line }))).toEqual([
      { script: "admin", args: ["token", "create", "--email", "a@b.c"], line: 1 },
      { script: "admin", args: ["token", "list", "--json"], line: 3 },
      { script: "bench:api", args: [], line: 4 },
    ]);
  });

  test("every npm run command names a script of package.json", () => {
    expect(commands.length).toBeGreaterThan(30);
    const missing = commands
      .filter((command) => !(command.script in scripts))
      .map(({ file, line, script }) => `${file}:${line}: npm run ${script}`);
    expect(missing).toEqual([]);
  });

  test("every admin command the docs show answers --help with exit 0", async () => {
    const groups = new Set(
      commands
        .filter((command) => command.script === "admin")
        .map((command) => command.args.find((arg) => !arg.startsWith("-") && !arg.includes("=")) ?? ""),
    );
    expect(groups.size).toBeGreaterThan(1);
    for (const group of groups) {
      const child = Bun.spawn(["npm", "run", "--silent", "admin", "--", ...(group ? [group] : []), "--help"], {
        cwd: root,
        stdout: "pipe",
        stderr: "pipe",
      });
      const [code, out] = await Promise.all([child.exited, new Response(child.stdout).text()]);
      expect({ group, code }).toEqual({ group, code: 0 });
      expect(out).toContain("Usage:");
    }
  }, 120_000);
});
