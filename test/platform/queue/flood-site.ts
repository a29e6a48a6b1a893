/**
 * A hostile site for the flood test, run as its own process so that serving 5 MB pages
 * does not disturb the test's latency probes: every path answers 200 with ~5 MB of deeply
 * nested HTML that names itself WordPress (so the analyzer goes on to probe every path).
 * Prints its origin on stdout, then serves until killed.
 */
const host = process.argv[2] ?? "127.0.0.2";
const DEPTH = 200_000;
const head = `<!doctype html><html><head><title>Flood</title><meta name="generator" content="WordPress 6.4.2">
<link rel="stylesheet" href="/wp-content/themes/flood/style.css?ver=6.4.2"></head><body>`;
const filler = "<div><span>x".repeat(DEPTH) + "</span></div>".repeat(DEPTH);
const page = new TextEncoder().encode(`${head}${filler}</body></html>`.padEnd(5_000_000, " "));
const server = Bun.serve({
  hostname: host,
  port: 0,
  idleTimeout: 60,
  fetch: () => new Response(page, { headers: { "content-type": "text/html; charset=UTF-8" } }),
});
console.log(`http://${host}:${server.port}/`);
