/**
 * The Dockerfile's lint (scripts/lint-dockerfile.ts): the project's Dockerfile is clean, and each
 * rule finds what it is for — so the check in .ci/run cannot pass by finding nothing at all.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";
import { lintDockerfile } from "../../scripts/lint-dockerfile.ts";

const ROOT = path.join(import.meta.dir, "..", "..");
const rules = (text: string) => lintDockerfile(text).map((finding) => finding.rule);
const PINNED = "FROM node:24-slim@sha256:a9f5f7c91a432850b2a8a7797adf5eadb6c733ceed61167806cee7ea7fbc29df";

describe("the Dockerfile's lint", () => {
  test("the project's Dockerfile has no finding, and every base image is pinned by digest", () => {
    const text = readFileSync(path.join(ROOT, "Dockerfile"), "utf8");
    expect(lintDockerfile(text)).toEqual([]);
    for (const line of text.split("\n").filter((line) => line.startsWith("FROM ")))
      expect(line).toMatch(/@sha256:[0-9a-f]{64}\b/);
  });

  test("each rule finds its fault", () => {
    const cases: [string, string][] = [
      ["WPR001", 'FROM node:24-slim\nUSER node\nCMD ["node"]'],
      ["DL3006", 'FROM node\nCMD ["node"]'],
      ["DL3007", 'FROM node:latest\nCMD ["node"]'],
      ["DL3000", `${PINNED}\nWORKDIR app`],
      ["DL3002", `${PINNED}\nUSER root`],
      ["DL3003", `${PINNED}\nRUN cd /tmp && make`],
      ["DL3004", `${PINNED}\nRUN sudo make`],
      ["DL3008", `${PINNED}\nRUN apt-get install -y --no-install-recommends curl && rm -rf /var/lib/apt/lists/*`],
      ["DL3009", `${PINNED}\nRUN apt-get install -y --no-install-recommends curl=7.88`],
      ["DL3014", `${PINNED}\nRUN apt-get install --no-install-recommends curl=7.88 && rm -rf /var/lib/apt/lists/*`],
      ["DL3015", `${PINNED}\nRUN apt-get install -y curl=7.88 && rm -rf /var/lib/apt/lists/*`],
      ["DL3016", `${PINNED}\nRUN npm install express`],
      ["DL3020", `${PINNED}\nADD server /app/server`],
      ["DL3022", `${PINNED}\nCOPY --from=build /a /b`],
      ["DL3024", `${PINNED} AS a\n${PINNED} AS a`],
      ["DL3025", `${PINNED}\nCMD node server.js`],
      ["DL4000", `${PINNED}\nMAINTAINER someone`],
      ["DL4003", `${PINNED}\nCMD ["a"]\nCMD ["b"]`],
      ["DL4006", `${PINNED}\nRUN curl -s https://x | sh`],
    ];
    for (const [rule, text] of cases)
      expect({ rule, found: rules(text).includes(rule) }).toEqual({ rule, found: true });
  });

  test("what is right passes: an earlier stage as a base, npm ci, a pinned npm install, pipefail set", () => {
    expect(
      rules(`${PINNED} AS deps
RUN npm ci --omit=dev && npm install patch-package@8.0.1
FROM deps
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
RUN echo a | cat
COPY --from=deps /app /app
USER node
CMD ["node", "server.js"]`),
    ).toEqual([]);
  });
});
