/**
 * An intel source's answer read as text within a size cap: a source that streams without end
 * (or a mirror gone wrong) costs at most `maxBytes` of memory, and the caller's error says which
 * source it was. One reader for WordPress.org, WPVulnerability and the names index.
 */
export async function readCappedText(
  response: Response,
  maxBytes: number,
  errors: {
    /** The error thrown when the answer passes the cap. */
    tooLarge: () => Error;
    /** The error thrown when the body breaks off mid-way; the stream's own error when absent. */
    brokeOff?: (cause: Error) => Error;
  },
): Promise<string> {
  if (!response.body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  let capped = false;
  try {
    for await (const chunk of response.body) {
      size += chunk.byteLength;
      if (size > maxBytes) {
        capped = true;
        break;
      }
      chunks.push(chunk);
    }
  } catch (error) {
    throw errors.brokeOff ? errors.brokeOff(error as Error) : error;
  }
  if (capped) {
    await response.body.cancel().catch(() => {});
    throw errors.tooLarge();
  }
  return Buffer.concat(chunks).toString("utf8");
}
