/**
 * Structured logging: one JSON object per line on stdout.
 *
 * Secrets never reach a log line: callers pass plain fields, and any field whose name
 * looks like a credential is replaced before writing, as a second line of defence.
 */
import type { LogLevel } from "./settings.ts";

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };
const SECRET_FIELD = /token|secret|password|authorization|cookie|api[-_]?key/i;

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

export function createLogger(
  level: LogLevel,
  write: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Logger {
  const min = ORDER[level];
  const emit = (lvl: Exclude<LogLevel, "silent">, msg: string, fields?: LogFields) => {
    if (ORDER[lvl] < min) return;
    const entry: LogFields = { time: new Date().toISOString(), level: lvl, msg };
    if (fields) {
      for (const [key, value] of Object.entries(fields)) {
        entry[key] = SECRET_FIELD.test(key) && key !== "token_id" ? "[redacted]" : value;
      }
    }
    write(JSON.stringify(entry, errorReplacer));
  };
  return {
    debug: (msg, fields) => emit("debug", msg, fields),
    info: (msg, fields) => emit("info", msg, fields),
    warn: (msg, fields) => emit("warn", msg, fields),
    error: (msg, fields) => emit("error", msg, fields),
  };
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message };
  return value;
}

/** A logger that drops everything; handy for tests and the CLI. */
export const silentLogger: Logger = createLogger("silent");
