import type { HttpArtifact } from "../artifacts.ts";
import { blockPageOf } from "../detect/block-pages.ts";
import type { FetchResult } from "../fetch/safe-client.ts";
import { ERROR_BODY_BYTES } from "./probes.ts";

/** Body bytes → text, honouring the declared charset; invalid bytes become U+FFFD. */
export function decodeBody(body: Buffer, contentType: string | null): string {
  const charset = /charset\s*=\s*"?([\w-]+)/i.exec(contentType ?? "")?.[1]?.toLowerCase() ?? "utf-8";
  try {
    return new TextDecoder(charset).decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body); // unknown charset label
  }
}

export function headersToRecord(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name] = value;
  });
  return out;
}

/** A response as an artifact; an error page's body is cut to ERROR_BODY_BYTES (only its shape matters). */
export function toArtifact(result: FetchResult): HttpArtifact {
  const whole = decodeBody(result.body, result.headers.get("content-type"));
  const headers = headersToRecord(result.headers);
  const cut = result.status >= 400 && whole.length > ERROR_BODY_BYTES;
  const body = cut ? whole.slice(0, ERROR_BODY_BYTES) : whole;
  const artifact: HttpArtifact = {
    url: result.url,
    status: result.status,
    headers,
    set_cookies: result.setCookies,
    body,
    truncated: result.truncated,
  };
  // A firewall's page whose marks are past the part kept (Wordfence signs at the bottom). Only
  // a certain one: a page that merely reads like a block is judged on what is kept, as the
  // saved artifacts let it be judged again.
  if (cut && !blockPageOf(artifact)) {
    const block = blockPageOf({ status: result.status, headers, body: whole });
    if (block?.certain) artifact.block = block;
  }
  if (result.redirects.length > 0) artifact.redirects = result.redirects;
  return artifact;
}
