/**
 * The Dockerfile's lint: hadolint's rules that apply to this project, checked with dockerfile-ast
 * (the parser the image test already uses). hadolint itself ships as a binary that neither npm
 * nor Debian's packages provide here, so its rules are kept under their own ids (DL…), and one
 * of the project's: every base image pinned by digest (WPR001). `bun scripts/lint-dockerfile.ts
 * [Dockerfile]` prints one line per finding and exits 1 when there is any; `.ci/run` runs it.
 */
import { readFileSync } from "node:fs";
import { Copy, DockerfileParser, From, type Instruction, JSONInstruction } from "dockerfile-ast";

export interface Finding {
  rule: string;
  line: number;
  message: string;
}

const RULES = {
  DL3000: "Use absolute WORKDIR",
  DL3002: "Last USER should not be root",
  DL3003: "Use WORKDIR to switch to a directory (not cd in RUN)",
  DL3004: "Do not use sudo",
  DL3006: "Always tag the version of an image explicitly",
  DL3007: "Using latest is prone to errors: pin the version explicitly",
  DL3008: "Pin versions in apt-get install (package=version)",
  DL3009: "Delete the apt-get lists after installing something",
  DL3014: "Use the -y switch to avoid manual input (apt-get install -y)",
  DL3015: "Avoid additional packages by specifying --no-install-recommends",
  DL3016: "Pin versions in npm install (or use npm ci with the lockfile)",
  DL3020: "Use COPY instead of ADD for files and folders",
  DL3022: "COPY --from should reference a previously defined FROM alias",
  DL3024: "FROM aliases (stage names) must be unique",
  DL3025: "Use arguments JSON notation for CMD and ENTRYPOINT arguments",
  DL4000: "MAINTAINER is deprecated",
  DL4003: "Multiple CMD instructions found: only the last takes effect",
  DL4004: "Multiple ENTRYPOINT instructions found: only the last takes effect",
  DL4006: "Set the SHELL option -o pipefail before RUN with a pipe in it",
  WPR001: "Pin every base image by digest (image:tag@sha256:…): docs/operations.md says how to update it",
} as const;

type Rule = keyof typeof RULES;

/** The shell text of a RUN, its continuation lines joined. */
const shellOf = (instruction: Instruction) => (instruction.getArgumentsContent() ?? "").replace(/\\\r?\n/g, " ");

export function lintDockerfile(text: string): Finding[] {
  const findings: Finding[] = [];
  const add = (rule: Rule, instruction: Instruction, detail = "") =>
    findings.push({
      rule,
      line: instruction.getRange().start.line + 1,
      message: `${RULES[rule]}${detail ? `: ${detail}` : ""}`,
    });
  const dockerfile = DockerfileParser.parse(text);
  const stages: string[] = [];
  let pipefail = false;
  let lastUser: { name: string; instruction: Instruction } | undefined;
  const counts = { CMD: [] as Instruction[], ENTRYPOINT: [] as Instruction[] };

  for (const instruction of dockerfile.getInstructions()) {
    const keyword = instruction.getKeyword();
    if (instruction instanceof From) {
      const name = instruction.getImageName() ?? "";
      const isStage = stages.includes(name.toLowerCase());
      if (!isStage && name !== "scratch") {
        const tag = instruction.getImageTag();
        if (!tag && !instruction.getImageDigest()) add("DL3006", instruction, name);
        if (tag === "latest") add("DL3007", instruction, `${name}:latest`);
        if (!instruction.getImageDigest()) add("WPR001", instruction, instruction.getImage() ?? name);
      }
      const alias = instruction.getBuildStage()?.toLowerCase();
      if (alias) {
        if (stages.includes(alias)) add("DL3024", instruction, alias);
        stages.push(alias);
      }
      // Each stage starts as root with the base image's shell: pipefail is set per stage.
      pipefail = false;
      continue;
    }
    switch (keyword) {
      case "WORKDIR": {
        const dir = instruction.getArgumentsContent()?.trim() ?? "";
        if (!dir.startsWith("/") && !dir.startsWith("$")) add("DL3000", instruction, dir);
        break;
      }
      case "USER":
        lastUser = { name: instruction.getArgumentsContent()?.trim() ?? "", instruction };
        break;
      case "MAINTAINER":
        add("DL4000", instruction);
        break;
      case "ADD": {
        const sources = instruction
          .getArguments()
          .slice(0, -1)
          .map((argument) => argument.getValue());
        if (sources.some((source) => !/^https?:\/\//.test(source) && !/\.(tar|tar\.\w+|tgz|tbz2?|txz)$/.test(source)))
          add("DL3020", instruction);
        break;
      }
      case "COPY": {
        const from = instruction instanceof Copy ? instruction.getFromFlag()?.getValue() : undefined;
        if (
          from &&
          !/^\d+$/.test(from) &&
          !stages.includes(from.toLowerCase()) &&
          !from.includes("/") &&
          !from.includes(":")
        )
          add("DL3022", instruction, from);
        break;
      }
      case "SHELL": {
        const args =
          instruction instanceof JSONInstruction
            ? instruction.getJSONStrings().map((s) => s.getValue().replace(/^"|"$/g, ""))
            : [];
        pipefail = args.includes("pipefail") || args.some((arg) => /-o\s*pipefail|-\w*o\w* pipefail/.test(arg));
        break;
      }
      case "CMD":
      case "ENTRYPOINT": {
        counts[keyword].push(instruction);
        const content = instruction.getArgumentsContent()?.trim() ?? "";
        if (!content.startsWith("[")) add("DL3025", instruction, keyword);
        break;
      }
      case "RUN": {
        const shell = shellOf(instruction);
        for (const command of shell.split(/&&|\|\||;/).map((part) => part.trim())) {
          if (/^cd\s/.test(command)) add("DL3003", instruction, command.slice(0, 60));
          if (/^sudo\b/.test(command)) add("DL3004", instruction);
          const apt = /^apt-get\s+(.*\binstall\b.*)$/.exec(command);
          if (apt) {
            const args = (apt[1] ?? "").split(/\s+/);
            if (!args.some((arg) => /^-\w*y\w*$/.test(arg) || arg === "--yes" || arg === "--assume-yes"))
              add("DL3014", instruction);
            if (!args.includes("--no-install-recommends")) add("DL3015", instruction);
            const packages = args.filter((arg) => !arg.startsWith("-") && arg !== "install");
            if (packages.some((name) => !name.includes("="))) add("DL3008", instruction, packages.join(" "));
          }
          const npm = /^npm\s+(?:install|i|add)\s+(.*)$/.exec(command);
          if (npm) {
            const packages = (npm[1] ?? "").split(/\s+/).filter((arg) => arg && !arg.startsWith("-"));
            if (packages.some((name) => !/@[^/]*\d/.test(name.replace(/^@[^/]+\//, ""))))
              add("DL3016", instruction, packages.join(" "));
          }
        }
        if (/apt-get\s+(?:-\S+\s+)*install\b/.test(shell) && !/rm\s+-(?:rf|fr|r)\s+\/var\/lib\/apt\/lists/.test(shell))
          add("DL3009", instruction);
        if (/(^|[^|])\|([^|]|$)/.test(shell) && !pipefail) add("DL4006", instruction);
        break;
      }
    }
  }
  if (counts.CMD.length > 1) add("DL4003", counts.CMD.at(-1) as Instruction);
  if (counts.ENTRYPOINT.length > 1) add("DL4004", counts.ENTRYPOINT.at(-1) as Instruction);
  if (lastUser && (lastUser.name === "root" || lastUser.name === "0" || lastUser.name.startsWith("0:")))
    add("DL3002", lastUser.instruction);
  return findings.sort((a, b) => a.line - b.line);
}

if (import.meta.main) {
  const file = process.argv[2] ?? "Dockerfile";
  const findings = lintDockerfile(readFileSync(file, "utf8"));
  for (const finding of findings) console.log(`${file}:${finding.line} ${finding.rule} ${finding.message}`);
  if (findings.length > 0) process.exit(1);
  console.log(`${file}: no findings (hadolint's rules and WPR001)`);
}
