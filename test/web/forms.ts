/**
 * The web interface without a browser: a tiny cookie jar over fetch that reads pages, finds
 * the CSRF field and posts forms the way a browser would (urlencoded, redirects not followed).
 */
import { requestFrom } from "../helpers/http-from.ts";

export interface FormResponse {
  status: number;
  headers: Headers;
  body: string;
  /** Set-Cookie lines of this response. */
  setCookies: string[];
  location: string | null;
}

const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

export class Browserless {
  readonly cookies = new Map<string, string>();

  constructor(
    readonly baseUrl: string,
    /** Extra headers on every request (e.g. X-Forwarded-For behind TRUST_PROXY). */
    readonly headers: Record<string, string> = {},
    /** Connect from this local address (e.g. 127.0.0.5), so the service sees another client. */
    readonly localAddress?: string,
  ) {}

  cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }

  async request(
    method: string,
    path: string,
    init: { form?: Record<string, string>; headers?: Record<string, string> } = {},
  ) {
    // What a browser sends for a navigation: HTML first (errors then come as pages, not problem+json).
    const headers: Record<string, string> = { accept: BROWSER_ACCEPT, ...this.headers, ...init.headers };
    const cookie = this.cookieHeader();
    if (cookie) headers.cookie = cookie;
    let body: string | undefined;
    if (init.form) {
      body = new URLSearchParams(init.form).toString();
      headers["content-type"] = "application/x-www-form-urlencoded";
    }
    const url = new URL(path, this.baseUrl).toString();
    const response = this.localAddress
      ? await requestFrom(url, { method, headers, body, localAddress: this.localAddress })
      : await fetch(url, { method, headers, body, redirect: "manual" }).then(async (answer) => ({
          status: answer.status,
          headers: answer.headers,
          body: await answer.text(),
        }));
    const setCookies = response.headers.getSetCookie();
    for (const line of setCookies) {
      const [pair = "", ...attributes] = line.split(";");
      const index = pair.indexOf("=");
      const name = pair.slice(0, index).trim();
      const value = pair.slice(index + 1).trim();
      const expired = attributes.some((attribute) => /^\s*max-age=0\s*$/i.test(attribute)) || value === "";
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return {
      status: response.status,
      headers: response.headers,
      body: response.body,
      setCookies,
      location: response.headers.get("location"),
    } satisfies FormResponse;
  }

  get(path: string, headers?: Record<string, string>) {
    return this.request("GET", path, { headers });
  }

  /** The CSRF value of the last page's forms (all forms of a page carry the same one). */
  static csrfOf(html: string): string {
    const match = /name="_csrf" value="([^"]+)"/.exec(html);
    if (!match?.[1]) throw new Error("no CSRF field on the page");
    return match[1];
  }

  /** GETs `pagePath`, then posts `fields` (+ its CSRF token) to `action`. */
  async submit(pagePath: string, action: string, fields: Record<string, string>, headers?: Record<string, string>) {
    const pageResponse = await this.get(pagePath);
    return this.request("POST", action, { form: { _csrf: Browserless.csrfOf(pageResponse.body), ...fields }, headers });
  }

  async signUp(email: string, password: string) {
    const response = await this.submit("/signup", "/signup", { email, password });
    if (response.status !== 303) throw new Error(`sign-up failed: ${response.status} ${response.body.slice(0, 500)}`);
    return response;
  }

  logIn(email: string, password: string, next?: string) {
    const action = next ? `/login?${new URLSearchParams({ next })}` : "/login";
    return this.submit("/login", action, { email, password });
  }
}

/** The attributes of a Set-Cookie line, lower-cased names ("httponly", "samesite" …). */
export function cookieAttributes(line: string): Map<string, string> {
  const [, ...parts] = line.split(";");
  return new Map(
    parts.map((part) => {
      const [name = "", ...value] = part.trim().split("=");
      return [name.toLowerCase(), value.join("=")];
    }),
  );
}

/** The page's visible message: the <h1> and the alert/ paragraph text, tags removed. */
export function textOf(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/&amp;/g, "&")
    .replace(/&quot;/g, '"')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/\s+/g, " ")
    .trim();
}
