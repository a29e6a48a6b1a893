/** The saved answers of firewalls and hosts (test/analyzer/block-pages/*.http): raw HTTP, status line, headers, body. */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Answer } from "../../server/analyzer/detect/block-pages.ts";

export const BLOCK_PAGES_DIR = path.join(import.meta.dir, "block-pages");

/** A saved raw HTTP answer. */
export function loadAnswer(name: string): Answer {
  const text = readFileSync(path.join(BLOCK_PAGES_DIR, name), "utf8");
  const split = text.indexOf("\n\n");
  const [statusLine = "", ...lines] = text.slice(0, split).split("\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(" ")[1]), headers, body: text.slice(split + 2) };
}
