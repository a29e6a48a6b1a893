/** Entry point of the GitHub Action (bundled to action/dist/index.js). */
import { run } from "./run.ts";

await run();
