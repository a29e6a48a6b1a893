/**
 * Which methods a path answers, read from the app's own route table (Elysia's `app.routes`),
 * so that a new route is covered without a list to keep in step: `405 Method Not Allowed`
 * with its `Allow` header, answers to OPTIONS, and the methods a CORS preflight may use.
 *
 * Paths are matched by memoirist, the router Elysia itself uses, so `:param` and `*` match
 * here exactly as they do there. Like Elysia without `strictPath`, a trailing slash is
 * optional.
 */
import { Memoirist } from "memoirist";

export interface RouteEntry {
  method: string;
  path: string;
}

export interface RouteMatch {
  /** The route template, e.g. `/api/report/:report_id` (for logs; never the raw path). */
  route: string;
  /** Methods in the order HTTP documents list them, HEAD with GET, OPTIONS always. */
  methods: string[];
}

/** The order of the `Allow` header: reads like the RFC's examples. */
const ORDER = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

function rank(method: string): number {
  const index = ORDER.indexOf(method);
  return index === -1 ? ORDER.length : index;
}

export class RouteTable {
  private readonly router = new Memoirist<string>();
  private readonly methods: string[];

  constructor(routes: Iterable<RouteEntry>) {
    const methods = new Set<string>();
    for (const { method, path } of routes) {
      const upper = method.toUpperCase();
      if (upper === "ALL" || upper === "WS") continue; // no such route in this app; never advertise them
      methods.add(upper);
      // Elysia answers both /x and /x/ unless strictPath is on; one of the two may already be there.
      const loose = path === "/" ? path : path.endsWith("/") ? path.slice(0, -1) : `${path}/`;
      for (const variant of new Set([path, loose])) {
        this.router.add(upper, variant, path, { ignoreError: true });
      }
    }
    this.methods = [...methods];
  }

  /** The route at this path and every method it answers; undefined for a path no route has. */
  match(pathname: string): RouteMatch | undefined {
    let route: string | undefined;
    const allowed = new Set<string>();
    for (const method of this.methods) {
      const found = this.router.find(method, pathname);
      if (!found) continue;
      route ??= found.store;
      allowed.add(method);
    }
    if (!route) return undefined;
    // Elysia answers HEAD for every GET route (the GET handler, body dropped); the HTTP
    // wrapper answers OPTIONS for every known path (server.ts).
    if (allowed.has("GET")) allowed.add("HEAD");
    allowed.add("OPTIONS");
    return { route, methods: [...allowed].sort((a, b) => rank(a) - rank(b)) };
  }
}
