/**
 * The admin CLI's command line (node:util parseArgs, server/cli/commands.ts): the flags each
 * command takes, in both spellings; bad flags are usage errors (exit 2) that name the flag,
 * refused before any database is opened.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs, UsageError } from "../../server/cli/commands.ts";
import { runCli } from "../helpers/processes.ts";

const refusal = (argv: string[]): string => {
  try {
    parseArgs(argv);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error(`${argv.join(" ")} was accepted`);
};

describe("admin CLI arguments", () => {
  test("--flag value and --flag=value, switches, -h, the last of a repeated flag", () => {
    expect(parseArgs(["token", "create", "--email", "a@example.com", "--plan=starter", "--expires-in", "30d"])).toEqual(
      {
        positional: ["token", "create"],
        flags: { email: "a@example.com", plan: "starter", "expires-in": "30d" },
      },
    );
    expect(parseArgs(["token", "revoke", "tok_123"])).toEqual({
      positional: ["token", "revoke", "tok_123"],
      flags: {},
    });
    expect(parseArgs(["account", "rate-limit", "--email", "a@example.com", "--clear"]).flags).toEqual({
      email: "a@example.com",
      clear: true,
    });
    expect(parseArgs(["account", "list", "--json"]).flags).toEqual({ json: true });
    expect(parseArgs(["-h"]).flags).toEqual({ help: true });
    expect(parseArgs(["plan", "set", "--email", "a@example.com", "--plan", "free", "--plan", "pro"]).flags.plan).toBe(
      "pro",
    );
    // An empty value is a value: the command says what is wrong with it.
    expect(parseArgs(["token", "create", "--email="]).flags.email).toBe("");
  });

  test("bad flags are usage errors that name the flag", () => {
    expect(refusal(["token", "create", "--email", "a@example.com", "--colour", "red"])).toBe(
      "unknown option --colour; run with --help",
    );
    expect(refusal(["account", "list", "-x"])).toBe("unknown option -x; run with --help");
    expect(refusal(["token", "create", "--email"])).toBe("--email needs a value");
    expect(refusal(["token", "create", "--email", "--plan", "free"])).toBe("--email needs a value");
    expect(refusal(["account", "list", "--json=yes"])).toBe("--json takes no value");
    // A flag of another command is not silently ignored.
    expect(refusal(["token", "list", "--email", "a@example.com", "--plan", "free"])).toBe(
      "token list takes no --plan; run with --help",
    );
    expect(refusal(["plan", "list", "--json"])).toBe("plan list takes no --json; run with --help");
    expect(refusal(["intel", "status", "--file", "x.json"])).toBe("intel status takes no --file; run with --help");
  });

  test("from the command line: exit 2, the message on stderr, and no database touched", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "wpreport-cli-args-"));
    try {
      const unknown = await runCli(["token", "create", "--email", "a@example.com", "--colour", "red"], {
        DATA_DIR: dataDir,
      });
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain("error: unknown option --colour; run with --help");
      expect(unknown.stdout).toBe("");
      const missing = await runCli(["account", "show", "--email"], { DATA_DIR: dataDir });
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain("error: --email needs a value");
      expect(readdirSync(dataDir)).toEqual([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
