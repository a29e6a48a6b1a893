/**
 * A local stand-in for the two outside services the intel refresh talks to, speaking their
 * real formats: WordPress.org's version-check and plugin/theme information APIs, and the
 * Wordfence Intelligence v3 feed (Bearer key, ETag/304). Each test sets how the feed answers.
 */
import { SAMPLE_FEED_TEXT } from "./feed-builder.ts";

export type FeedMode = "ok" | "500" | "truncated" | "stall" | "tiny";

export interface IntelStub {
  url: string;
  feedUrl: string;
  /** How the next feed requests are answered. */
  feedMode: FeedMode;
  /** The feed body served in "ok" mode, and its ETag. */
  feedBody: string;
  etag: string;
  /** Requests seen, by path (+ slug for the directory APIs). */
  hits: Map<string, number>;
  /** The Authorization header of the last feed request. */
  lastAuthorization: string | null;
  stop(): void;
}

export const STUB_API_KEY = "wf-test-key-3f9a8c2e1d";

const PLUGINS: Record<string, unknown> = {
  akismet: { name: "Akismet Anti-spam", slug: "akismet", version: "5.3.5" },
  "xrds-simple": { name: "XRDS-Simple", slug: "xrds-simple", version: "1.2" },
  "closed-plugin": {
    error: "closed",
    name: "Closed Plugin",
    slug: "closed-plugin",
    closed: true,
    reason: "security-issue",
  },
};
const THEMES: Record<string, unknown> = {
  twentytwentyone: { name: "Twenty Twenty-One", slug: "twentytwentyone", version: "2.6" },
};

export function startIntelStub(): IntelStub {
  const stub: IntelStub = {
    url: "",
    feedUrl: "",
    feedMode: "ok",
    feedBody: SAMPLE_FEED_TEXT,
    etag: '"v1"',
    hits: new Map(),
    lastAuthorization: null,
    stop: () => server.stop(true),
  };
  const hit = (key: string) => stub.hits.set(key, (stub.hits.get(key) ?? 0) + 1);
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      if (url.pathname === "/api/intelligence/v3/vulnerabilities/production") {
        hit("feed");
        stub.lastAuthorization = request.headers.get("authorization");
        if (stub.lastAuthorization !== `Bearer ${STUB_API_KEY}`) {
          return Response.json({ message: "Unauthorized" }, { status: 401 });
        }
        switch (stub.feedMode) {
          case "500":
            return new Response("Internal Server Error", { status: 500 });
          case "truncated":
            // The connection ends after 60% of the document.
            return new Response(stub.feedBody.slice(0, Math.floor(stub.feedBody.length * 0.6)), {
              headers: { "content-type": "application/json", etag: '"v2"' },
            });
          case "stall":
            return new Response(
              new ReadableStream({
                start(controller) {
                  controller.enqueue(new TextEncoder().encode(stub.feedBody.slice(0, 200)));
                  // …and nothing more.
                },
              }),
              { headers: { "content-type": "application/json" } },
            );
          case "tiny":
            return Response.json({}, { headers: { etag: '"v3"' } });
          default:
            if (request.headers.get("if-none-match") === stub.etag) return new Response(null, { status: 304 });
            return new Response(stub.feedBody, {
              headers: {
                "content-type": "application/json",
                etag: stub.etag,
                "last-modified": "Sat, 21 Nov 2026 06:00:00 GMT",
              },
            });
        }
      }
      if (url.pathname === "/core/version-check/1.7/") {
        hit("core");
        return Response.json({
          offers: [
            {
              response: "upgrade",
              download: "https://downloads.wordpress.org/release/wordpress-6.8.3.zip",
              current: "6.8.3",
              version: "6.8.3",
              locale: "en_US",
            },
            { response: "autoupdate", current: "6.1.10", version: "6.1.10", locale: "en_US" },
          ],
          translations: [],
        });
      }
      const slug = url.searchParams.get("request[slug]") ?? "";
      if (url.pathname === "/plugins/info/1.2/") {
        hit(`plugin:${slug}`);
        if (slug === "slow-plugin") {
          await Bun.sleep(800);
          return Response.json({ name: "Slow", slug, version: "2.0.1" });
        }
        const answer = PLUGINS[slug];
        return answer ? Response.json(answer) : Response.json({ error: "Plugin not found." }, { status: 404 });
      }
      if (url.pathname === "/themes/info/1.2/") {
        hit(`theme:${slug}`);
        const answer = THEMES[slug];
        return answer ? Response.json(answer) : Response.json({ error: "Theme not found" }, { status: 404 });
      }
      return new Response("not found", { status: 404 });
    },
  });
  stub.url = `http://127.0.0.1:${server.port}`;
  stub.feedUrl = `${stub.url}/api/intelligence/v3/vulnerabilities/production`;
  return stub;
}
