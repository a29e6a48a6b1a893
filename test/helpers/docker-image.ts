/**
 * A Docker image rebuilt without Docker: no daemon runs where this project is developed and
 * tested, so the image's file set is reproduced from the Dockerfile itself, in temporary folders.
 *
 * - Each stage (FROM) is a folder standing for its root file system; WORKDIR is a folder in it.
 * - COPY takes its sources from the build context filtered by .dockerignore (@balena/dockerignore,
 *   a port of Docker's own matcher), or with --from from an earlier stage's folder. A source that
 *   is missing or excluded fails the build, as `docker build` does.
 * - RUN runs its shell command in the stage's WORKDIR with the stage's ENV; the base image's tools
 *   come from this machine (node and npm for node images, this Bun for oven/bun images).
 * - ENV, USER, EXPOSE, VOLUME, HEALTHCHECK and CMD are recorded for the caller to run.
 *
 * Ownership (--chown, USER) is not reproduced: the files belong to whoever runs the tests. Any
 * instruction this does not know (ADD, ARG, ENTRYPOINT, SHELL…) is an error, so a Dockerfile
 * change can never be skipped silently: the reproduction must learn it first.
 */
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync } from "node:fs";
import path from "node:path";
import ignore from "@balena/dockerignore";
import { type Copy, DockerfileParser, type From, type Instruction, type JSONInstruction } from "dockerfile-ast";

export interface ImageStage {
  /** `AS name`, or null. */
  name: string | null;
  /** The base image as written (`oven/bun:1.4-slim`). */
  image: string;
  /** The folder standing for this stage's `/`. */
  root: string;
  /** WORKDIR, as an absolute path inside the image. */
  workdir: string;
  env: Record<string, string>;
  /** A folder with the base image's tools, first on PATH. */
  bin: string;
}

export interface BuiltImage {
  stages: ImageStage[];
  /** The last stage: the image. */
  final: ImageStage;
  /** The folder of the final stage's WORKDIR, where CMD runs. */
  appDir: string;
  cmd: string[];
  healthcheck: string[] | undefined;
  exposed: number[];
  volumes: string[];
  user: string | undefined;
  /** Every COPY line, as written, for messages. */
  copies: string[];
}

export interface BuildOptions {
  /** The build context: the repository checkout. */
  context: string;
  /** Where the stages' folders are made. */
  into: string;
  /** Extra environment for RUN (e.g. npm_config_offline). */
  runEnv?: Record<string, string>;
  /** Runs one RUN command; returns its exit code and output. */
  run(
    command: string[],
    options: { cwd: string; env: Record<string, string> },
  ): Promise<{ code: number; output: string }>;
}

/** The tools a base image brings, by image name. */
function baseTools(image: string): string[] {
  const name = image.split(":")[0] ?? image;
  if (name === "node" || name.endsWith("/node")) return ["node", "npm", "npx"];
  if (name === "oven/bun") return ["bun", "bunx"];
  throw new Error(`FROM ${image}: the reproduction does not know what this base image provides`);
}

function toolPath(tool: string): string {
  if (tool === "bun" || tool === "bunx") return process.execPath;
  const found = Bun.which(tool);
  if (!found) throw new Error(`${tool} is not installed on this machine`);
  return found;
}

/** The environment a process in the image sees: the image's ENV over a minimal base. */
export function imageEnv(stage: ImageStage, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: `${stage.bin}:/usr/local/bin:/usr/bin:/bin`,
    HOME: path.join(stage.root, "home"),
    ...stage.env,
    ...extra,
  };
}

/** Everything under `dir` (relative, posix), directories listed before their contents. */
function walk(dir: string, prefix: string, skip: (relative: string) => boolean, out: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (skip(relative)) continue;
    out.push(relative);
    if (entry.isDirectory()) walk(path.join(dir, entry.name), relative, skip, out);
  }
}

export async function buildImage(dockerfileText: string, options: BuildOptions): Promise<BuiltImage> {
  const dockerfile = DockerfileParser.parse(dockerfileText);
  const ignoreFile = path.join(options.context, ".dockerignore");
  const patterns = existsSync(ignoreFile) ? await Bun.file(ignoreFile).text() : "";
  const ignored = ignore().add(patterns);
  // Docker does not walk into an excluded folder unless an exception (!pattern) may re-include something in it.
  const exceptions = patterns
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.startsWith("!"))
    .map((line) => line.slice(1).replace(/^\/+/, ""));
  const prunable = (dir: string) =>
    ignored.ignores(dir) && !exceptions.some((exception) => exception.startsWith(`${dir}/`) || exception.includes("*"));

  const stages: ImageStage[] = [];
  const copies: string[] = [];
  const image: Omit<BuiltImage, "stages" | "final" | "appDir" | "copies"> = {
    cmd: [],
    healthcheck: undefined,
    exposed: [],
    volumes: [],
    user: undefined,
  };
  let stage: ImageStage | undefined;
  const inImage = (current: ImageStage, target: string) => path.join(current.root, target);

  for (const instruction of dockerfile.getInstructions()) {
    const keyword = instruction.getKeyword();
    if (keyword === "FROM") {
      const from = instruction as From;
      const imageName = `${from.getImageName()}${from.getImageTag() ? `:${from.getImageTag()}` : ""}`;
      const root = mkdtempSync(path.join(options.into, `stage-${stages.length}-`));
      const bin = path.join(root, "base-image-bin");
      mkdirSync(bin, { recursive: true });
      mkdirSync(path.join(root, "home"), { recursive: true });
      for (const tool of baseTools(imageName)) symlinkSync(toolPath(tool), path.join(bin, tool));
      stage = { name: from.getBuildStage(), image: imageName, root, workdir: "/", env: {}, bin };
      stages.push(stage);
      continue;
    }
    if (!stage) throw new Error(`${keyword} before FROM`);
    const current = stage;
    switch (keyword) {
      case "WORKDIR": {
        current.workdir = path.posix.resolve(current.workdir, argumentText(instruction));
        mkdirSync(inImage(current, current.workdir), { recursive: true });
        break;
      }
      case "ENV": {
        for (const argument of instruction.getArguments()) {
          const text = argument.getValue();
          const equals = text.indexOf("=");
          if (equals < 1) throw new Error(`ENV ${text}: only the NAME=value form is reproduced`);
          current.env[text.slice(0, equals)] = text.slice(equals + 1);
        }
        break;
      }
      case "COPY": {
        copies.push(instruction.getTextContent?.() ?? `COPY ${argumentText(instruction)}`);
        copy(instruction as Copy, current, stages, options.context, ignored, prunable);
        break;
      }
      case "RUN": {
        const command = argumentText(instruction);
        const cwd = inImage(current, current.workdir);
        const result = await options.run(["sh", "-c", command], {
          cwd,
          env: imageEnv(current, options.runEnv),
        });
        if (result.code !== 0) {
          throw new Error(`RUN ${command}\nexited with ${result.code}:\n${result.output.slice(-4000)}`);
        }
        break;
      }
      case "USER":
        image.user = argumentText(instruction);
        break;
      case "EXPOSE":
        image.exposed.push(...instruction.getArguments().map((argument) => Number.parseInt(argument.getValue(), 10)));
        break;
      case "VOLUME":
        image.volumes.push(...jsonOrWords(instruction));
        break;
      case "CMD":
        image.cmd = jsonForm(instruction);
        break;
      case "HEALTHCHECK": {
        const text = argumentText(instruction);
        if (/^NONE$/i.test(text)) {
          image.healthcheck = undefined;
          break;
        }
        const command = text.replace(/^(--[a-z-]+=\S+\s+)*CMD\s+/i, "");
        if (!command.startsWith("[")) throw new Error("HEALTHCHECK: only the exec (JSON) form is reproduced");
        image.healthcheck = JSON.parse(command) as string[];
        break;
      }
      case "LABEL":
        break;
      default:
        throw new Error(`${keyword}: the image reproduction (test/helpers/docker-image.ts) does not know it yet`);
    }
  }
  if (!stage) throw new Error("the Dockerfile has no FROM");
  const final = stage;
  return { ...image, stages, final, appDir: inImage(final, final.workdir), copies };
}

function argumentText(instruction: Instruction): string {
  return (instruction.getArgumentsContent() ?? "").trim();
}

function jsonForm(instruction: Instruction): string[] {
  const strings = (instruction as JSONInstruction).getJSONStrings?.() ?? [];
  if (strings.length === 0) throw new Error(`${instruction.getKeyword()}: only the exec (JSON) form is reproduced`);
  return strings.map((item) => item.getJSONValue());
}

function jsonOrWords(instruction: Instruction): string[] {
  const strings = (instruction as JSONInstruction).getJSONStrings?.() ?? [];
  return strings.length > 0
    ? strings.map((item) => item.getJSONValue())
    : instruction.getArguments().map((argument) => argument.getValue());
}

type Matcher = { ignores(path: string): boolean };

function copy(
  instruction: Copy,
  stage: ImageStage,
  stages: ImageStage[],
  context: string,
  ignored: Matcher,
  prunable: (dir: string) => boolean,
): void {
  const flags = new Map(instruction.getFlags().map((flag) => [flag.getName(), flag.getValue() ?? ""]));
  for (const name of flags.keys()) {
    if (!["from", "chown", "link"].includes(name)) throw new Error(`COPY --${name}: not reproduced`);
  }
  const json = instruction.getJSONStrings();
  const words =
    json.length > 0 ? json.map((item) => item.getJSONValue()) : instruction.getArguments().map((a) => a.getValue());
  const sources = words.slice(0, -1);
  const destination = words.at(-1) ?? "";
  if (sources.length === 0) throw new Error("COPY needs a source and a destination");
  const destinationPath = path.posix.resolve(stage.workdir, destination);
  const intoFolder = destination.endsWith("/") || sources.length > 1;
  const target = (name: string) =>
    path.join(stage.root, intoFolder ? path.posix.join(destinationPath, name) : destinationPath);

  const fromName = flags.get("from");
  if (fromName !== undefined) {
    const from = stages.find((candidate, index) => candidate.name === fromName || String(index) === fromName);
    if (!from) throw new Error(`COPY --from=${fromName}: no such stage`);
    for (const source of sources) {
      const absolute = path.join(from.root, path.posix.resolve(from.workdir, source));
      if (!existsSync(absolute)) throw new Error(`COPY --from=${fromName} ${source}: not found in that stage`);
      // A folder's contents go to the destination itself (Docker copies contents, not the folder).
      const into = lstatSync(absolute).isDirectory()
        ? path.join(stage.root, destinationPath)
        : target(path.posix.basename(source));
      cpSync(absolute, into, { recursive: true, verbatimSymlinks: true });
    }
    return;
  }

  for (const source of sources) {
    const relative = path.posix.normalize(source).replace(/^\/+/, "").replace(/\/+$/, "");
    if (relative.includes("*") || relative.includes("?") || relative.includes("[")) {
      throw new Error(`COPY ${source}: wildcards are not reproduced`);
    }
    if (relative.startsWith("..")) throw new Error(`COPY ${source}: outside the build context`);
    const absolute = path.join(context, relative);
    const missing = () =>
      new Error(`COPY ${source}: not found in the build context (missing, or excluded by .dockerignore)`);
    if (!existsSync(absolute) || (relative !== "." && ignored.ignores(relative))) throw missing();
    if (!lstatSync(absolute).isDirectory()) {
      const into = target(path.posix.basename(relative));
      mkdirSync(path.dirname(into), { recursive: true });
      cpSync(absolute, into);
      continue;
    }
    // A folder: its contents (not the folder itself) go to the destination, minus what is excluded.
    const base = relative === "." ? "" : relative;
    const entries: string[] = [];
    walk(
      absolute,
      base,
      (entry) => (lstatSync(path.join(context, entry)).isDirectory() ? prunable(entry) : false),
      entries,
    );
    const folder = destinationPath;
    let copied = 0;
    for (const entry of entries) {
      if (ignored.ignores(entry)) continue;
      const inside = base ? entry.slice(base.length + 1) : entry;
      const into = path.join(stage.root, folder, inside);
      if (lstatSync(path.join(context, entry)).isDirectory()) mkdirSync(into, { recursive: true });
      else {
        mkdirSync(path.dirname(into), { recursive: true });
        cpSync(path.join(context, entry), into, { verbatimSymlinks: true });
        copied++;
      }
    }
    if (copied === 0) throw missing();
  }
}
