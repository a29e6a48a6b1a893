/**
 * A browser-like session against the web interface, with plain fetch: a cookie jar, the
 * CSRF token from the pages' hidden `_csrf` field, redirects not
 * followed (tests assert the 303 and its Location).
 *
 *   const web = await WebSession.signup(service.url);       // through GET + POST /signup
 *   const page = await web.get("/billing");                  // HTML
 *   const res = await web.post("/billing/checkout", { plan: "business" });
 */

const CSRF_FIELD = "_csrf";

let counter = 0;

export class WebSession {
  readonly cookies = new Map<string, string>();

  constructor(
    readonly baseUrl: string,
    readonly email = "",
  ) {}

  /** Signs up a new account through the real pages and returns the logged-in session. */
  static async signup(baseUrl: string, options: { email?: string; password?: string } = {}): Promise<WebSession> {
    const email = options.email ?? `web${++counter}-${Date.now()}@example.com`;
    const session = new WebSession(baseUrl, email);
    const form = await session.get("/signup");
    if (form.status !== 200) throw new Error(`GET /signup answered ${form.status}`);
    const csrf = hiddenCsrf(await form.text());
    const response = await session.post(
      "/signup",
      { email, password: options.password ?? "correct horse battery staple" },
      csrf,
    );
    if (response.status !== 303 || !session.cookies.has("wpr_session")) {
      throw new Error(`sign-up failed: ${response.status} ${(await response.text()).slice(0, 300)}`);
    }
    return session;
  }

  /** Logs in an existing account through GET + POST /login. */
  static async login(baseUrl: string, email: string, password: string): Promise<WebSession> {
    const session = new WebSession(baseUrl, email);
    const csrf = hiddenCsrf(await (await session.get("/login")).text());
    const response = await session.post("/login", { email, password }, csrf);
    if (response.status !== 303) throw new Error(`login failed: ${response.status}`);
    return session;
  }

  /**
   * The CSRF token a form of ours carries now. It is bound to the session (or, before
   * log-in, to the `wpr_csrf` cookie), so it is read from a page, as a browser would.
   */
  async csrf(): Promise<string> {
    const path = this.cookies.has("wpr_session") ? "/account" : "/login";
    return hiddenCsrf(await (await this.get(path)).text());
  }

  async get(path: string, headers: Record<string, string> = {}): Promise<Response> {
    return this.request("GET", path, undefined, headers);
  }

  /** Posts a form as a browser would, with this session's CSRF token unless one is given. */
  async post(
    path: string,
    fields: Record<string, string> = {},
    csrf?: string,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    csrf ??= await this.csrf();
    const body = new URLSearchParams({ ...fields, [CSRF_FIELD]: csrf });
    return this.request("POST", path, body.toString(), {
      "content-type": "application/x-www-form-urlencoded",
      ...headers,
    });
  }

  private async request(
    method: string,
    path: string,
    body: string | undefined,
    headers: Record<string, string>,
  ): Promise<Response> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      body,
      redirect: "manual",
      headers: { accept: "text/html", ...(cookie ? { cookie } : {}), ...headers },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = "", ...attributes] = line.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((attribute) => /^\s*max-age=0\s*$/i.test(attribute));
      if (expired || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }
}

/** The value of a page's hidden `_csrf` field. */
export function hiddenCsrf(html: string): string {
  const input = html.match(/<input[^>]*name="_csrf"[^>]*>/)?.[0];
  const value = input?.match(/value="([^"]*)"/)?.[1];
  if (!value) throw new Error("the page has no _csrf field");
  return value;
}
