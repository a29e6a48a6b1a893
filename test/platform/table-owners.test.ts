/**
 * One table, one writer (docs/architecture.md, "Boundaries"): every INSERT, UPDATE, DELETE,
 * MERGE or TRUNCATE of a table in server/ is in the folder TABLE_OWNERS names for it, and every
 * table a migration creates has an owner.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { TABLE_OWNERS } from "../../server/platform/db/table-owners.ts";
import { ROOT } from "../helpers/processes.ts";

const SERVER = path.join(ROOT, "server");
const MIGRATIONS = path.join(SERVER, "platform/db/migrations");

/** Every .ts/.tsx file under a folder. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** The tables a piece of code writes: write statements inside its template literals (SQL). */
export function writtenTables(code: string): string[] {
  const tables: string[] = [];
  for (const literal of code.matchAll(/`([^`]*)`/g)) {
    const text = (literal[1] as string).toLowerCase();
    // "on conflict … do update set" writes the table of its own insert, already counted.
    for (const match of text.matchAll(
      /(?<!do\s)\b(?:insert\s+into|update|delete\s+from|merge\s+into|truncate(?:\s+table)?)\s+([a-z_][a-z0-9_]*)/g,
    )) {
      tables.push(match[1] as string);
    }
  }
  return tables;
}

/** The folder directly under server/ that holds a file. */
function featureOf(file: string): string {
  return path.relative(SERVER, file).split(path.sep)[0] as string;
}

describe("one table, one writer", () => {
  test("the scanner finds writes and ignores upserts' own update and prose", () => {
    expect(writtenTables("sql`insert into reports (id) values (1) on conflict (id) do update set x = 1`")).toEqual([
      "reports",
    ]);
    expect(writtenTables("tx`\n  UPDATE  accounts SET plan_id = 'free'`; sql`delete from sessions where x`")).toEqual([
      "accounts",
      "sessions",
    ]);
    expect(writtenTables("// update reports when done\nconst a = `select * from reports`;")).toEqual([]);
  });

  test("every table a migration creates has an owner", () => {
    const created = readdirSync(MIGRATIONS)
      .filter((file) => file.endsWith(".sql"))
      .flatMap((file) =>
        [
          ...readFileSync(path.join(MIGRATIONS, file), "utf8").matchAll(/create table (?:if not exists )?([a-z_]+)/gi),
        ].map((match) => (match[1] as string).toLowerCase()),
      );
    const unowned = [...new Set(created)].filter((table) => !(table in TABLE_OWNERS));
    expect(unowned).toEqual([]);
  });

  test("each table is written only from its owner's folder", () => {
    const crossings: string[] = [];
    for (const file of sources(SERVER)) {
      for (const table of writtenTables(readFileSync(file, "utf8"))) {
        const owner = (TABLE_OWNERS as Record<string, string>)[table];
        if (owner === undefined) continue; // not a table (a word in a template string) or pg-boss's own
        if (featureOf(file) !== owner) crossings.push(`${path.relative(ROOT, file)} writes ${table} (owner: ${owner})`);
      }
    }
    expect(crossings).toEqual([]);
  });
});
