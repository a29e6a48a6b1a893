/**
 * The text of a PDF, page by page, as Mozilla's pdf.js reads it (the pdf-parse package), and its
 * document info. pdf.js runs in a child process: loading it installs DOMMatrix, Path2D and a
 * native canvas into the process, after which the service's analysis threads in that process
 * stop working — and bun runs many test files in one process.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const READER = path.join(import.meta.dir, "pdf-text.child.ts");

export interface PdfText {
  pages: string[];
  info: Record<string, unknown>;
}

export async function pdfText(bytes: Uint8Array): Promise<PdfText> {
  const dir = mkdtempSync(path.join(tmpdir(), "wpreport-pdf-"));
  try {
    const file = path.join(dir, "document.pdf");
    writeFileSync(file, bytes);
    const child = Bun.spawn([process.execPath, READER, file], { stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    if (code !== 0) throw new Error(`reading the PDF failed (${code}): ${err.slice(0, 500)}`);
    return JSON.parse(out) as PdfText;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
