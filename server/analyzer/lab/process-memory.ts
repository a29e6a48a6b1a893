/**
 * The resident memory of a process and its descendants (Linux /proc), for the lab's memory
 * cap: Chromium is a tree of processes (browser, renderers, GPU, network service), and a page
 * that eats memory does it in a renderer.
 */
import { readdirSync, readFileSync } from "node:fs";

const PAGE_MB = 4096 / (1024 * 1024);

/** Resident MB of `pid` and every process below it; 0 where /proc cannot tell. */
export function processTreeRssMb(pid: number): number {
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return 0;
  }
  const children = new Map<number, number[]>();
  for (const entry of entries) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // The command name is in parentheses and may hold spaces: fields start after the last ")".
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const parent = Number(fields[1]);
      const list = children.get(parent) ?? [];
      list.push(Number(entry));
      children.set(parent, list);
    } catch {}
  }
  let pages = 0;
  const queue = [pid];
  const seen = new Set<number>();
  while (queue.length > 0) {
    const current = queue.pop() as number;
    if (seen.has(current)) continue;
    seen.add(current);
    try {
      const statm = readFileSync(`/proc/${current}/statm`, "utf8").split(" ");
      pages += Number(statm[1]) || 0;
    } catch {}
    queue.push(...(children.get(current) ?? []));
  }
  return pages * PAGE_MB;
}
