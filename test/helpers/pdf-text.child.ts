/** Child process of pdf-text.ts: prints `{ pages, info }` of the PDF named on the command line as JSON. */
import { readFileSync } from "node:fs";
import { PDFParse } from "pdf-parse";

const file = process.argv[2];
if (!file) throw new Error("usage: pdf-text.child.ts <file.pdf>");
const parser = new PDFParse({ data: new Uint8Array(readFileSync(file)) });
try {
  const text = await parser.getText();
  const info = await parser.getInfo();
  process.stdout.write(JSON.stringify({ pages: text.pages.map((page) => page.text), info: info.info ?? {} }));
} finally {
  await parser.destroy();
}
