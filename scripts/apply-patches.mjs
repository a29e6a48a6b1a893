#!/usr/bin/env node
/**
 * Applies the fixes in patches/ to installed dependencies (npm's `postinstall`).
 *
 * package.json's `patchedDependencies` ("name@version" → patch file) is Bun's own format:
 * `bun install` (the Docker image) applies those patches by itself. npm knows no such field,
 * so after `npm ci` / `npm install` this script applies the same files. It is idempotent (a
 * patch already in place is left alone) and fails loudly when the installed version is not
 * the one a patch was written for, or when a hunk does not fit: a dependency must never run
 * silently unpatched. Why we patch at all: docs/decisions.md, "postgres.js, patched".
 *
 * Plain Node, no dependencies: it runs before anything else could be relied on.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));

/** A unified diff → [{ file, hunks: [{ start, old: string[], new: string[] }] }]. */
function parsePatch(text) {
  const files = [];
  let file;
  let hunk;
  for (const line of text.split("\n")) {
    if (line.startsWith("--- ")) continue;
    if (line.startsWith("+++ ")) {
      file = { file: line.slice(4).replace(/^b\//, "").trim(), hunks: [] };
      files.push(file);
      hunk = undefined;
      continue;
    }
    const header = /^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@/.exec(line);
    if (header) {
      hunk = { start: Number(header[1]) - 1, old: [], new: [] };
      file.hunks.push(hunk);
      continue;
    }
    if (!hunk) continue; // diff --git, index lines
    if (line.startsWith(" ")) {
      hunk.old.push(line.slice(1));
      hunk.new.push(line.slice(1));
    } else if (line.startsWith("-")) hunk.old.push(line.slice(1));
    else if (line.startsWith("+")) hunk.new.push(line.slice(1));
    else if (line.startsWith("\\")) continue; // "\ No newline at end of file"
  }
  return files;
}

/** Where `block` occurs in `lines`, nearest to `near`; -1 when nowhere. */
function find(lines, block, near) {
  let best = -1;
  for (let i = 0; i + block.length <= lines.length; i++) {
    if (block.every((text, k) => lines[i + k] === text) && (best < 0 || Math.abs(i - near) < Math.abs(best - near)))
      best = i;
  }
  return best;
}

function applyTo(source, hunks, where) {
  let lines = source.split("\n");
  let applied = 0;
  let present = 0;
  for (const hunk of hunks) {
    const at = find(lines, hunk.old, hunk.start);
    if (at >= 0) {
      lines = [...lines.slice(0, at), ...hunk.new, ...lines.slice(at + hunk.old.length)];
      applied++;
    } else if (find(lines, hunk.new, hunk.start) >= 0) {
      present++;
    } else {
      throw new Error(`${where}: a hunk at line ${hunk.start + 1} does not fit the installed file`);
    }
  }
  if (applied > 0 && present > 0) throw new Error(`${where}: partly patched already; reinstall the package`);
  return { text: lines.join("\n"), applied: applied > 0 };
}

let failed = false;
for (const [spec, patchFile] of Object.entries(manifest.patchedDependencies ?? {})) {
  const at = spec.lastIndexOf("@");
  const name = spec.slice(0, at);
  const version = spec.slice(at + 1);
  try {
    const dir = path.join(root, "node_modules", name);
    const installed = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")).version;
    if (installed !== version) {
      throw new Error(
        `${name} ${installed} is installed but ${patchFile} was written for ${version}: check whether upstream fixed it, then drop or rewrite the patch`,
      );
    }
    const changes = parsePatch(readFileSync(path.join(root, patchFile), "utf8")).map(({ file, hunks }) => {
      const target = path.join(dir, file);
      return { target, ...applyTo(readFileSync(target, "utf8"), hunks, `${spec} ${file}`) };
    });
    for (const change of changes) if (change.applied) writeFileSync(change.target, change.text);
    const done = changes.some((change) => change.applied);
    process.stdout.write(`${spec}: ${done ? "patched" : "already patched"} (${patchFile})\n`);
  } catch (error) {
    failed = true;
    process.stderr.write(`apply-patches: ${error instanceof Error ? error.message : String(error)}\n`);
  }
}
process.exit(failed ? 1 : 0);
