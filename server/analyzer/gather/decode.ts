import type { HttpArtifact } from "../artifacts.ts";
import { blockPageOf } from "../detect/block-pages.ts";
import type { FetchResult } from "../fetch/safe-client.ts";
import { ERROR_BODY_BYTES } from "./probes.ts";

/** One decoder per charset label: a decoder without `stream` keeps no state between calls. */
const decoders = new Map<string, TextDecoder>();
const UTF8 = new TextDecoder("utf-8");

function decoderFor(charset: string): TextDecoder {
  let decoder = decoders.get(charset);
  if (!decoder) {
    try {
      decoder = new TextDecoder(charset);
    } catch {
      decoder = UTF8; // unknown charset label
    }
    // Labels come from sites: a few are kept, not every one a hostile site invents.
    if (decoders.size < 32) decoders.set(charset, decoder);
  }
  return decoder;
}

/** Body bytes → text, honouring the declared charset; invalid bytes become U+FFFD. */
export function decodeBody(body: Buffer, contentType: string | null): string {
  const charset = /charset\s*=\s*"?([\w-]+)/i.exec(contentType ?? "")?.[1]?.toLowerCase() ?? "utf-8";
  return decoderFor(charset).decode(body);
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
