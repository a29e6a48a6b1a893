/**
 * Reading request bodies with a hard size limit, counting bytes as they arrive (a missing
 * or lying Content-Length cannot get past it); JSON bodies are decoded strictly as UTF-8.
 */
import { ApiProblem } from "./problem.ts";
import { findUnstorableText, UNSTORABLE_DETAIL } from "./storable-text.ts";

function tooLarge(maxBytes: number): ApiProblem {
  return new ApiProblem("payload_too_large", `The request body must not exceed ${maxBytes} bytes.`, {
    extensions: { max_bytes: maxBytes },
  });
}

/** The body as bytes, at most `maxBytes`; 413 problem beyond. */
export async function readBodyCapped(request: Request, maxBytes: number): Promise<Buffer> {
  if (Number(request.headers.get("content-length") ?? "0") > maxBytes) throw tooLarge(maxBytes);
  if (!request.body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      // Not awaited: on a rebuilt Request (see client-request.ts) Bun's cancel() never settles.
      reader.cancel().catch(() => {});
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}

export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const contentType = (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (contentType !== "application/json" && !contentType.endsWith("+json")) {
    throw new ApiProblem(
      "unsupported_media_type",
      "Send the request body as JSON with Content-Type: application/json.",
    );
  }
  const bytes = await readBodyCapped(request, maxBytes);
  if (bytes.byteLength === 0)
    throw new ApiProblem("invalid_request", "The request body is empty; expected a JSON object.");

  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ApiProblem("invalid_request", "The request body is not valid UTF-8.");
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiProblem("invalid_request", "The request body is not valid JSON.");
  }
  // Valid JSON can still spell out text no database stores ("\u0000", a lone "\ud800").
  const bad = findUnstorableText(value);
  if (bad !== undefined) {
    throw new ApiProblem("invalid_request", `The value at ${bad} ${UNSTORABLE_DETAIL}.`, {
      extensions: { errors: [{ location: "body", pointer: bad, detail: UNSTORABLE_DETAIL }] },
    });
  }
  return value;
}
