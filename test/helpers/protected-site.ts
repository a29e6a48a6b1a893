/**
 * Password-protected sites for the site-credentials tests (shared/site-auth.ts), as real HTTP
 * servers on loopback:
 *
 * - `startRecorder`: a second origin (an asset host, a redirect target) that keeps every request's
 *   full header block, to prove the credentials never reach it;
 * - `startProtectedBlog`: a WordPress-like blog that answers 401 to any request without all three
 *   of basic auth, a cookie and a header; its homepage loads assets from the second origin, its
 *   robots.txt redirects there, and its title and description echo two of the secrets back (as a
 *   careless staging site might), so the report must redact them;
 * - `startProtectedProxy`: the real WordPress fixture behind the same protection, on an origin of
 *   its own (its absolute links rewritten to the proxy's), i.e. a staging copy of a real site.
 */
import zlib from "node:zlib";
import { BLOG_VERSION, blogFeed } from "./sites.ts";

const ENCODERS: Record<string, (body: Buffer) => Buffer> = {
  gzip: (body) => zlib.gzipSync(body),
  br: (body) => zlib.brotliCompressSync(body),
  deflate: (body) => zlib.deflateSync(body),
};

export interface SiteSecrets {
  username: string;
  password: string;
  /** Value of the X-Staging-Token header the site requires. */
  header: string;
  /** Value of the staging_pass cookie the site requires. */
  cookie: string;
}

/** Fresh, long, unmistakable secrets: any occurrence in a dump or a log is a leak. */
export function newSecrets(): SiteSecrets {
  const random = () => crypto.randomUUID().replaceAll("-", "");
  return {
    username: "staging",
    password: `pw-${random()}`,
    header: `hdr-${random()}`,
    cookie: `ck-${random()}`,
  };
}

/** Every form in which a secret could leak: the values and the basic-auth token they make. */
export function secretForms(secrets: SiteSecrets): string[] {
  return [
    secrets.password,
    secrets.header,
    secrets.cookie,
    Buffer.from(`${secrets.username}:${secrets.password}`).toString("base64"),
  ];
}

/** The request body's `site_auth` for these secrets. */
export function siteAuthOf(secrets: SiteSecrets) {
  return {
    basic: { username: secrets.username, password: secrets.password },
    headers: { "X-Staging-Token": secrets.header },
    cookies: { staging_pass: secrets.cookie },
  };
}

export interface RecordedRequest {
  method: string;
  url: string;
  /** Every header line as received. */
  headers: [string, string][];
}

export interface Recorder {
  origin: string;
  requests: RecordedRequest[];
  /** Path → where it redirects (302); may be filled after the start. */
  redirects: Record<string, string>;
  stop(): void;
}

/** A second origin that answers everything and keeps what it was sent. */
export function startRecorder(redirects: Record<string, string> = {}): Recorder {
  const requests: RecordedRequest[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const url = new URL(request.url);
      requests.push({ method: request.method, url: request.url, headers: [...request.headers.entries()] });
      const to = redirects[url.pathname];
      if (to) return new Response(null, { status: 302, headers: { location: to } });
      if (url.pathname.endsWith(".js"))
        return new Response("void 0;", { headers: { "content-type": "text/javascript" } });
      return new Response("ok", { headers: { "content-type": "text/plain" } });
    },
  });
  return { origin: `http://127.0.0.1:${server.port}`, requests, redirects, stop: () => server.stop(true) };
}

export interface ProtectedSite {
  url: string;
  origin: string;
  /** Holds every homepage request until the returned function is called (an analysis "running"). */
  hold(): () => void;
  /** Requests that came without all the credentials (answered 401). */
  refused: string[];
  /** Requests that came with them. */
  admitted: string[];
  stop(): void;
}

/** Whether a request carries all three credentials. */
function authorised(request: Request, secrets: SiteSecrets): boolean {
  const basic = `Basic ${Buffer.from(`${secrets.username}:${secrets.password}`).toString("base64")}`;
  const cookies = (request.headers.get("cookie") ?? "").split(/;\s*/);
  return (
    request.headers.get("authorization") === basic &&
    request.headers.get("x-staging-token") === secrets.header &&
    cookies.includes(`staging_pass=${secrets.cookie}`)
  );
}

function guarded(
  secrets: SiteSecrets,
  serve: (request: Request, url: URL) => Response | Promise<Response>,
): Pick<ProtectedSite, "refused" | "admitted"> & { fetch(request: Request): Promise<Response> } {
  const refused: string[] = [];
  const admitted: string[] = [];
  return {
    refused,
    admitted,
    async fetch(request) {
      const url = new URL(request.url);
      const line = `${request.method} ${url.pathname}${url.search}`;
      if (!authorised(request, secrets)) {
        refused.push(line);
        return new Response("Authorization required", {
          status: 401,
          headers: { "www-authenticate": 'Basic realm="staging"', "content-type": "text/plain" },
        });
      }
      admitted.push(line);
      return serve(request, url);
    },
  };
}

/** A WordPress-like blog behind basic auth + a cookie + a header, linking to `other` (another origin). */
export function startProtectedBlog(secrets: SiteSecrets, other: Recorder): ProtectedSite {
  let origin = "";
  let gate: Promise<void> = Promise.resolve();
  const html = () => `<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Staging ${secrets.cookie}</title>
<meta name="description" content="Preview build, token ${secrets.header}, for the client's review of the new theme.">
<link rel="alternate" type="application/rss+xml" title="Feed" href="${origin}/feed/">
<link rel="https://api.w.org/" href="${origin}/wp-json/">
<link rel="stylesheet" href="${origin}/wp-includes/css/dist/block-library/style.min.css?ver=${BLOG_VERSION}">
<link rel="stylesheet" href="${other.origin}/cdn/theme.css">
<script src="${other.origin}/cdn/app.js"></script>
<meta name="generator" content="WordPress ${BLOG_VERSION}">
</head><body class="home blog"><h1>Staging</h1><img src="${other.origin}/cdn/logo.png" alt="logo">
<p>${"Hello world. ".repeat(200)}</p></body></html>`;
  const site = guarded(secrets, async (_request, url) => {
    switch (url.pathname) {
      case "/":
        await gate;
        return new Response(html(), { headers: { "content-type": "text/html; charset=UTF-8" } });
      case "/feed/":
        return new Response(blogFeed, { headers: { "content-type": "application/rss+xml" } });
      case "/robots.txt":
        // Off to the other origin: the redirect hop must go without the credentials.
        return new Response(null, { status: 302, headers: { location: `${other.origin}/robots.txt` } });
      default:
        return new Response("<!doctype html><title>Not found</title>", {
          status: 404,
          headers: { "content-type": "text/html" },
        });
    }
  });
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, idleTimeout: 60, fetch: site.fetch });
  origin = `http://127.0.0.1:${server.port}`;
  const hold = () => {
    let release = () => {};
    gate = new Promise((resolve) => {
      release = resolve;
    });
    return release;
  };
  return {
    url: `${origin}/`,
    origin,
    hold,
    refused: site.refused,
    admitted: site.admitted,
    stop: () => server.stop(true),
  };
}

/**
 * The real WordPress at `upstream` behind the protection, on an origin of its own: requests are
 * forwarded with the upstream's Host, and the upstream's own origin in bodies and Location
 * headers is rewritten to the proxy's, as a staging copy of a site would serve it.
 */
export function startProtectedProxy(secrets: SiteSecrets, upstream: string): ProtectedSite {
  const upstreamOrigin = new URL(upstream).origin;
  let origin = "";
  // JSON (the REST API) writes the origin with escaped slashes: http:\/\/127.0.0.1:8088.
  const escaped = (text: string) => text.replaceAll("/", "\\/");
  const rewrite = (text: string) =>
    text.replaceAll(upstreamOrigin, origin).replaceAll(escaped(upstreamOrigin), escaped(origin));
  const site = guarded(secrets, async (request, url) => {
    const headers = new Headers(request.headers);
    for (const name of ["authorization", "cookie", "x-staging-token", "host"]) headers.delete(name);
    const answer = await fetch(`${upstreamOrigin}${url.pathname}${url.search}`, {
      method: request.method,
      headers,
      body: request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer(),
      redirect: "manual",
    });
    const out = new Headers(answer.headers);
    for (const name of ["content-length", "content-encoding", "transfer-encoding", "connection"]) out.delete(name);
    const location = out.get("location");
    if (location) out.set("location", rewrite(location));
    if (request.method === "HEAD") return new Response(null, { status: answer.status, headers: out });
    const type = out.get("content-type") ?? "";
    const textual = /html|xml|json|javascript|css|text/.test(type);
    const body = textual ? Buffer.from(rewrite(await answer.text())) : Buffer.from(await answer.arrayBuffer());
    // fetch decoded the upstream's body; encode it again as the upstream did, so the copy is as
    // compressed as the site (the analyzer checks compression).
    const encoding = answer.headers.get("content-encoding");
    const encode = encoding ? ENCODERS[encoding] : undefined;
    if (encode && encoding) out.set("content-encoding", encoding);
    return new Response(new Uint8Array(encode ? encode(body) : body), { status: answer.status, headers: out });
  });
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, idleTimeout: 60, fetch: site.fetch });
  origin = `http://127.0.0.1:${server.port}`;
  const hold = () => () => {};
  return {
    url: `${origin}/`,
    origin,
    hold,
    refused: site.refused,
    admitted: site.admitted,
    stop: () => server.stop(true),
  };
}
