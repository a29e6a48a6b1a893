/**
 * Pages for lab tests and bench:lab, served on loopback: a plain fast page, a page with a
 * known layout shift (about 0.2 on the mobile viewport) and a 450 ms long task after first
 * paint, and a page that asks for things it must never reach. A second server on another
 * port counts every hit it gets: the policy must keep it at 0.
 */
export interface LabPages {
  origin: string;
  port: number;
  /** The server the pages must never reach (another loopback port, not allowlisted). */
  forbidden: { origin: string; port: number; hits: () => number };
  /** Request headers the site saw, by path. */
  seen: Map<string, Headers>;
  stop(): void;
}

const html = (body: string, head = "") =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Lab page</title>${head}</head><body style="margin:0;font-family:sans-serif">${body}</body></html>`;

/** 600 px of content the banner pushes down by 200 px: impact ≈ 0.97 × distance ≈ 0.24 on 412×823. */
const SHIFT_AND_LONG_TASK = html(
  `<main id="content" style="height:600px;background:#dde">
    <h1>Article</h1><p>${"Text that paints first. ".repeat(20)}</p></main>
  <script>
    requestAnimationFrame(() => setTimeout(() => {
      const banner = document.createElement("div");
      banner.id = "late-banner";
      banner.style.height = "200px";
      banner.textContent = "Late banner";
      document.body.prepend(banner);
      const start = performance.now();
      while (performance.now() - start < 450) {}
    }, 300));
  </script>`,
);

/** The shift alone: the banner arrives 300 ms after the first frame, no long task. */
const SHIFT_ONLY = SHIFT_AND_LONG_TASK.replace("while (performance.now() - start < 450) {}", "");

/** The long task alone: 450 ms of script after the first paint, nothing moves. */
const LONG_TASK_ONLY = html(
  `<main style="height:600px;background:#dde"><h1>Article</h1><p>${"Text that paints first. ".repeat(20)}</p></main>
  <script>
    requestAnimationFrame(() => setTimeout(() => {
      const start = performance.now();
      while (performance.now() - start < 450) {}
    }, 300));
  </script>`,
);

const FAST = html(`<h1>Fast page</h1><p>${"A short paragraph. ".repeat(10)}</p>`);

export function startLabPages(): LabPages {
  let forbiddenHits = 0;
  const forbidden = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch() {
      forbiddenHits += 1;
      return new Response("reached", { headers: { "access-control-allow-origin": "*" } });
    },
  });
  const seen = new Map<string, Headers>();
  const other = `http://127.0.0.1:${forbidden.port}`;
  const site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const url = new URL(request.url);
      seen.set(url.pathname, request.headers);
      const page = (body: string) => new Response(body, { headers: { "content-type": "text/html; charset=utf-8" } });
      switch (url.pathname) {
        case "/fast/":
          return page(FAST);
        case "/shift/":
          return page(SHIFT_AND_LONG_TASK);
        case "/shift-only/":
          return page(SHIFT_ONLY);
        case "/long-task/":
          return page(LONG_TASK_ONLY);
        case "/leaky/":
          return page(
            html(
              `<h1>Leaky</h1>
              <img src="${other}/img.png" alt="">
              <script src="${other}/script.js"></script>
              <link rel="stylesheet" href="${other}/style.css">
              <iframe src="${other}/frame"></iframe>
              <img src="/redirect-away" alt="">
              <img src="http://lab-rebind.test:${forbidden.port}/named.png" alt="">
              <img src="http://lab-site.test:${url.port}/named-allowed.png" alt="">
              <script>
                fetch("${other}/fetch").catch(() => {});
                fetch("https://127.0.0.1:${forbidden.port}/tls").catch(() => {});
                try { new WebSocket("ws://127.0.0.1:${forbidden.port}/ws"); } catch {}
                navigator.sendBeacon && navigator.sendBeacon("${other}/beacon", "x");
              </script>`,
            ),
          );
        case "/redirect-away":
          return new Response(null, { status: 302, headers: { location: `${other}/redirected.png` } });
        case "/slow/":
          // Never finishes: the lab run's deadline must end it.
          return new Response(
            new ReadableStream({
              start(controller) {
                controller.enqueue(new TextEncoder().encode("<!doctype html><h1>Slow"));
              },
            }),
            { headers: { "content-type": "text/html" } },
          );
        default:
          return new Response("not found", { status: 404 });
      }
    },
  });
  return {
    origin: `http://127.0.0.1:${site.port}`,
    port: site.port as number,
    forbidden: { origin: other, port: forbidden.port as number, hits: () => forbiddenHits },
    seen,
    stop() {
      site.stop(true);
      forbidden.stop(true);
    },
  };
}
