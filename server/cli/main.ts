/** Entry point of `npm run admin`: opens the database the server uses and runs one command. */

import { syncPlans } from "../billing/plans-sync.ts";
import { openDatabase } from "../platform/db/database.ts";
import { silentLogger } from "../platform/logger.ts";
import { ConfigError, loadConfig } from "../start/config.ts";
import { HELP, parseArgs, runCommand, UsageError } from "./commands.ts";

const io = {
  out: (line: string) => process.stdout.write(`${line}\n`),
  err: (line: string) => process.stderr.write(`${line}\n`),
  async readLine() {
    if (process.stdin.isTTY) process.stderr.write("New password (one line, then Ctrl-D; it is shown as you type): ");
    return (await Bun.stdin.text()).split("\n")[0];
  },
};

async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  if (args.positional.length === 0 || args.flags.help || args.positional[0] === "help") {
    io.out(HELP);
    return 0;
  }
  const config = loadConfig();
  const db = await openDatabase(config.platform, silentLogger, { role: "cli" });
  try {
    await syncPlans(db.sql);
    await runCommand(db.sql, argv, io, config);
    return 0;
  } finally {
    await db.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    if (error instanceof UsageError) {
      io.err(`error: ${error.message}`);
      process.exit(2);
    }
    if (error instanceof ConfigError) {
      io.err(error.message);
      process.exit(2);
    }
    io.err(`error: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
