/**
 * Reads a JSON request body with a hard size limit, counting bytes as they arrive (a
 * missing or lying Content-Length cannot get past it) and decoding strictly as UTF-8.
 */
import { ApiProblem } from "./problem.ts";

export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const contentType = (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (contentType !== "application/json" && !contentType.endsWith("+json")) {
    throw new ApiProblem(
      "unsupported_media_type",
      "Send the request body as JSON with Content-Type: application/json.",
    );
  }
  const tooLarge = () =>
    new ApiProblem("payload_too_large", `The request body must not exceed ${maxBytes} bytes.`, {
      extensions: { max_bytes: maxBytes },
    });
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw tooLarge();
  if (!request.body) throw new ApiProblem("invalid_request", "The request body is empty; expected a JSON object.");

  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  if (total === 0) throw new ApiProblem("invalid_request", "The request body is empty; expected a JSON object.");

  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new ApiProblem("invalid_request", "The request body is not valid UTF-8.");
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiProblem("invalid_request", "The request body is not valid JSON.");
  }
}
