/**
 * Everything a database holds, as text, to search for what must not be there (a secret): every
 * row of every table in every schema (ours and pg-boss's), on PostgreSQL and PGlite alike, and on
 * PostgreSQL also what `pg_dump` writes. Binary columns come out as hex, so a search also looks
 * for each needle's hex form.
 */
import type { Sql } from "../../server/platform/db/database.ts";

export async function dumpDatabase(sql: Sql): Promise<string> {
  const tables = await sql<{ schema: string; name: string }[]>`
    select table_schema as schema, table_name as name from information_schema.tables
    where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')
    order by 1, 2`;
  const parts: string[] = [];
  for (const { schema, name } of tables) {
    const rows = await sql.unsafe<{ row: string }[]>(`select t::text as row from "${schema}"."${name}" t`);
    parts.push(`-- ${schema}.${name}: ${rows.length} rows`, ...rows.map((row) => row.row));
  }
  return parts.join("\n");
}

/** What `pg_dump --data-only` writes for a PostgreSQL database. */
export async function pgDump(url: string): Promise<string> {
  const child = Bun.spawn(["pg_dump", "--data-only", "--no-owner", url], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  if (code !== 0) throw new Error(`pg_dump failed: ${err}`);
  return out;
}

/** The needles found in `text`, as given or hex-encoded (bytea). */
export function found(text: string, needles: string[]): string[] {
  return needles.filter((needle) => text.includes(needle) || text.includes(Buffer.from(needle).toString("hex")));
}
