/**
 * The admin CLI's commands, separate from process concerns so tests can run them
 * in-process. Human-readable lines go to `err` (stderr); machine-readable output
 * (a new token, --json listings) goes to `out` (stdout).
 */

import { type ParseArgsConfig, parseArgs as parseCommandLine } from "node:util";
import { TokenService } from "../access/token.service.ts";
import { type Account, AccountAuthService, AccountService, normaliseEmail } from "../accounts/account.service.ts";
import { hashPassword, passwordProblem } from "../accounts/password.ts";
import { isPlanId, PLAN_IDS, PLANS, type PlanId } from "../billing/plans.ts";
import { QuotaService } from "../billing/quota.service.ts";
import type { Sql } from "../platform/db/database.ts";
import type { Config } from "../start/config.ts";
import { SessionService } from "../web/session.service.ts";
import { INTEL_HELP } from "./intel-help.ts";

export class UsageError extends Error {}

export interface CliIO {
  out: (line: string) => void;
  err: (line: string) => void;
  /** The first line of standard input (secrets are read there, never from arguments). */
  readLine?: () => Promise<string | undefined>;
}

export const HELP = `wpreport admin CLI

Usage: npm run --silent admin -- <command> [options]

Tokens
  token create --email <email> [--plan <plan>] [--name <name>] [--expires-in <days>]
               Creates the account if it does not exist (on --plan, default free; an
               existing account is moved to --plan when given) and prints the new
               token alone on the last line of stdout. It is shown only this once.
  token list --email <email> [--json]
  token revoke <token id>

Accounts
  account create --email <email> [--plan <plan>]
  account show --email <email> [--json]     plan, quota and usage this period
  account list [--json]
  account password --email <email>
               Sets the account's web password, read from the first line of standard
               input (e.g. printf '%s\n' "$PASSWORD" | npm run --silent admin -- account
               password --email you@example.com); ends its web sessions. For accounts the
               CLI made (they have no password) or a forgotten one.
  account rate-limit --email <email> (--rpm <requests per minute> | --clear)
               Overrides the plan's rate limit for one account (support, benchmarks).

Plans
  plan list
  plan set --email <email> --plan <plan>    takes effect at once

${INTEL_HELP}

Plan ids: ${PLAN_IDS.join(", ")}.
The CLI reaches the database the server uses: DATABASE_URL when set, otherwise the
embedded database in DATA_DIR (through the running server, or directly when none runs).
`;

/** Every flag of the admin CLI, for node:util's parseArgs; COMMAND_FLAGS says which command takes which. */
const FLAGS = {
  email: { type: "string" },
  plan: { type: "string" },
  name: { type: "string" },
  "expires-in": { type: "string" },
  json: { type: "boolean" },
  rpm: { type: "string" },
  clear: { type: "boolean" },
  file: { type: "string" },
  source: { type: "string" },
  type: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const satisfies NonNullable<ParseArgsConfig["options"]>;

type FlagName = keyof typeof FLAGS;
type StringFlag = { [name in FlagName]: (typeof FLAGS)[name]["type"] extends "string" ? name : never }[FlagName];

/** The flags each command takes (and --help): any other is refused, rather than silently ignored. */
const COMMAND_FLAGS: Record<string, readonly FlagName[]> = {
  "token create": ["email", "plan", "name", "expires-in"],
  "token list": ["email", "json"],
  "token revoke": [],
  "account create": ["email", "plan"],
  "account show": ["email", "json"],
  "account list": ["json"],
  "account password": ["email"],
  "account rate-limit": ["email", "rpm", "clear"],
  "plan list": [],
  "plan set": ["email", "plan"],
  "intel import": ["file", "source", "type"],
  "intel status": ["json"],
  "intel refresh": [],
};

export interface ParsedArgs {
  /** The command's words and arguments: `token revoke tok_…`. */
  positional: string[];
  flags: { [name in FlagName]?: (typeof FLAGS)[name]["type"] extends "string" ? string : boolean };
}

/**
 * The command line, read by node:util's parseArgs (as the user CLI, action/src/cli.ts, does):
 * `--flag value` or `--flag=value`, `-h` for --help. An unknown flag, a flag the command does not
 * take, a value missing or given to a switch is a UsageError (exit 2) naming the flag.
 */
export function parseArgs(argv: string[]): ParsedArgs {
  const { positionals: positional, values: flags } = readCommandLine(argv);
  const command = positional.slice(0, 2).join(" ");
  const takes = COMMAND_FLAGS[command];
  if (takes && !flags.help) {
    for (const name of Object.keys(flags) as FlagName[]) {
      if (!takes.includes(name)) throw new UsageError(`${command} takes no --${name}; run with --help`);
    }
  }
  return { positional, flags };
}

function readCommandLine(argv: string[]) {
  try {
    return parseCommandLine({ args: argv, options: FLAGS, allowPositionals: true, strict: true });
  } catch (error) {
    throw commandLineError(error);
  }
}

/** parseArgs's refusals in the CLI's words, naming the flag as it was typed. */
function commandLineError(error: unknown): Error {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  const flag = /'(--?[^' <]+)/.exec(message)?.[1];
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && flag)
    return new UsageError(`unknown option ${flag}; run with --help`);
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && flag) {
    return new UsageError(message.includes("does not take") ? `${flag} takes no value` : `${flag} needs a value`);
  }
  return error instanceof Error ? error : new Error(message);
}

function stringFlag(args: ParsedArgs, name: StringFlag, required: true): string;
function stringFlag(args: ParsedArgs, name: StringFlag, required?: false): string | undefined;
function stringFlag(args: ParsedArgs, name: StringFlag, required = false): string | undefined {
  const value = args.flags[name];
  if (value === undefined && required) throw new UsageError(`--${name} is required`);
  return value;
}

function emailFlag(args: ParsedArgs): string {
  const email = normaliseEmail(stringFlag(args, "email", true));
  if (!email) throw new UsageError("--email is not a valid email address");
  return email;
}

function planFlag(args: ParsedArgs, required: true): PlanId;
function planFlag(args: ParsedArgs, required?: false): PlanId | undefined;
function planFlag(args: ParsedArgs, required = false): PlanId | undefined {
  const plan = required ? stringFlag(args, "plan", true) : stringFlag(args, "plan");
  if (plan === undefined) return undefined;
  if (!isPlanId(plan)) throw new UsageError(`unknown plan "${plan}"; plan ids: ${PLAN_IDS.join(", ")}`);
  return plan;
}

const iso = (date: Date | null) => (date ? date.toISOString() : "-");

/** What every command of the table gets: the parsed arguments, the services and where output goes. */
interface CommandContext {
  sql: Sql;
  args: ParsedArgs;
  /** The third word: a token id for `token revoke`. */
  target: string | undefined;
  io: CliIO;
  json: boolean;
  accounts: AccountService;
  tokens: TokenService;
  /** The account of --email, or a usage error naming it. */
  requireAccount(email: string): Promise<Account>;
}

type Command = (context: CommandContext) => Promise<void>;

/** `--expires-in 90` (or `90d`): a date that many days from now; null without the flag. */
function expiryFlag(args: ParsedArgs): Date | null {
  const expiresIn = stringFlag(args, "expires-in");
  if (expiresIn === undefined) return null;
  const days = Number(expiresIn.replace(/d$/, ""));
  if (!Number.isInteger(days) || days < 1 || days > 3650) {
    throw new UsageError("--expires-in must be a number of days between 1 and 3650");
  }
  return new Date(Date.now() + days * 86_400_000);
}

const tokenCreate: Command = async ({ args, io, accounts, tokens }) => {
  const email = emailFlag(args);
  const plan = planFlag(args);
  const name = stringFlag(args, "name");
  const expiresAt = expiryFlag(args);
  const { account, created } = await accounts.ensure(email, plan);
  const { token, record } = await tokens.create(account.id, { name, expiresAt });
  io.err(`${created ? "Created account" : "Account"} ${account.email} (${account.id}) on plan ${account.planId}.`);
  io.err(
    `Token ${record.id} "${record.name}"${expiresAt ? `, expires ${expiresAt.toISOString()}` : ""}. Store it now: it is not shown again.`,
  );
  io.out(token);
};

const tokenList: Command = async ({ args, io, json, tokens, requireAccount }) => {
  const account = await requireAccount(emailFlag(args));
  const list = await tokens.list(account.id);
  if (json) {
    io.out(JSON.stringify(list));
    return;
  }
  if (list.length === 0) io.err(`No tokens for ${account.email}.`);
  for (const token of list) {
    const state = token.revokedAt ? "revoked" : token.expiresAt && token.expiresAt < new Date() ? "expired" : "active";
    io.out(
      `${token.id}  ${token.prefix}…  ${state.padEnd(7)}  created ${iso(token.createdAt)}  last used ${iso(token.lastUsedAt)}  expires ${iso(token.expiresAt)}  ${token.name}`,
    );
  }
};

const tokenRevoke: Command = async ({ target, io, tokens }) => {
  if (!target) throw new UsageError("token revoke needs a token id (tok_…); see token list");
  const record = await tokens.findById(target);
  if (!record) throw new UsageError(`no token ${target}`);
  const revoked = await tokens.revoke(record.accountId, record.id);
  io.err(revoked ? `Revoked ${record.id}; it stops working on its next request.` : `${record.id} was already revoked.`);
};

const accountCreate: Command = async ({ args, io, accounts }) => {
  const { account, created } = await accounts.ensure(emailFlag(args), planFlag(args));
  io.err(created ? `Created account ${account.email}.` : `Account ${account.email} already exists.`);
  io.out(account.id);
};

const accountShow: Command = async ({ sql, args, io, json, requireAccount }) => {
  const account = await requireAccount(emailFlag(args));
  const plan = PLANS.find((candidate) => candidate.id === account.planId);
  const usage = await new QuotaService(sql).usage(account.id, plan?.monthlyQuota ?? 0);
  const summary = {
    id: account.id,
    email: account.email,
    plan: account.planId,
    quota: usage.quota,
    used: usage.used,
    in_progress: usage.reserved,
    remaining: usage.remaining,
    resets_at: usage.period.end.toISOString(),
    requests_per_minute: account.rateLimitPerMinute ?? plan?.requestsPerMinute,
    created_at: account.createdAt.toISOString(),
  };
  if (json) io.out(JSON.stringify(summary));
  else for (const [key, value] of Object.entries(summary)) io.out(`${key.padEnd(20)} ${value}`);
};

const accountList: Command = async ({ io, json, accounts }) => {
  const list = await accounts.list();
  if (json) {
    io.out(JSON.stringify(list));
    return;
  }
  for (const account of list) io.out(`${account.id}  ${account.planId.padEnd(12)}  ${account.email}`);
};

const accountPassword: Command = async ({ sql, args, io, requireAccount }) => {
  const account = await requireAccount(emailFlag(args));
  const password = (await io.readLine?.())?.replace(/\r$/, "") ?? "";
  if (password === "") throw new UsageError("account password reads the new password from standard input");
  const problem = passwordProblem(password, account.email);
  if (problem) throw new UsageError(problem);
  await new AccountAuthService(sql).setPassword(account.id, await hashPassword(password));
  await new SessionService(sql).destroyOthers(account.id, undefined);
  io.err(`Set the password of ${account.email}; its web sessions have ended. It can log in at /login.`);
};

const accountRateLimit: Command = async ({ args, io, accounts, requireAccount }) => {
  const account = await requireAccount(emailFlag(args));
  let perMinute: number | null = null;
  if (!args.flags.clear) {
    perMinute = Number(stringFlag(args, "rpm", true));
    if (!Number.isInteger(perMinute) || perMinute < 1 || perMinute > 10_000_000) {
      throw new UsageError("--rpm must be a whole number of requests per minute");
    }
  }
  await accounts.setRateLimitOverride(account.id, perMinute);
  io.err(
    perMinute
      ? `${account.email} may now make ${perMinute} requests per minute.`
      : `${account.email} is back on its plan's rate limit.`,
  );
};

const planList: Command = async ({ io }) => {
  for (const plan of PLANS) {
    const price = plan.priceEurCents === null ? "—" : `€${plan.priceEurCents / 100}`;
    io.out(
      `${plan.id.padEnd(13)} ${plan.name.padEnd(13)} ${price.padStart(5)}/month  ${String(plan.monthlyQuota).padStart(5)} reports/month  ${String(plan.requestsPerMinute).padStart(4)} requests/minute`,
    );
  }
};

const planSet: Command = async ({ args, io, accounts, requireAccount }) => {
  const account = await requireAccount(emailFlag(args));
  const plan = planFlag(args, true);
  await accounts.setPlan(account.id, plan);
  io.err(`${account.email} is now on plan ${plan}.`);
};

/** Every command but intel's (intel-commands.ts), by its two words. */
const COMMANDS: Readonly<Record<string, Command>> = {
  "token create": tokenCreate,
  "token list": tokenList,
  "token revoke": tokenRevoke,
  "account create": accountCreate,
  "account show": accountShow,
  "account list": accountList,
  "account password": accountPassword,
  "account rate-limit": accountRateLimit,
  "plan list": planList,
  "plan set": planSet,
};

export async function runCommand(sql: Sql, argv: string[], io: CliIO, config?: Config): Promise<void> {
  const args = parseArgs(argv);
  const [group, action, target] = args.positional;
  if (!group || group === "help" || args.flags.help) {
    io.out(HELP);
    return;
  }
  if (group === "intel") {
    // Loaded on demand: the feed parser and the refresh are not needed for token and plan commands.
    const { runIntelCommand } = await import("./intel-commands.ts");
    return runIntelCommand(sql, action, args, io, config);
  }
  const command = COMMANDS[`${group} ${action ?? ""}`.trim()];
  if (!command) throw new UsageError(`unknown command "${args.positional.join(" ")}"; run with --help`);
  const accounts = new AccountService(sql);
  const requireAccount = async (email: string) => {
    const account = await accounts.findByEmail(email);
    if (!account) throw new UsageError(`no account with email ${email}`);
    return account;
  };
  await command({
    sql,
    args,
    target,
    io,
    json: args.flags.json === true,
    accounts,
    tokens: new TokenService(sql),
    requireAccount,
  });
}
