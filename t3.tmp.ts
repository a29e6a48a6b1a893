import { createSafeAgent } from "./server/analyzer/fetch/safe-agent.ts";
import { TargetPolicy } from "./server/analyzer/fetch/target-policy.ts";
import { runLab } from "./server/analyzer/lab/lab-run.ts";

let hits = 0;
const other = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch() {
    hits++;
    return new Response("x");
  },
});
const site = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch(req) {
    const u = new URL(req.url);
    if (u.pathname === "/")
      return new Response(
        `<!doctype html><html><head><title>t</title><link rel=stylesheet href="/s.css"></head><body><h1>Hello</h1><p id=p>text</p><img src="/i.svg"><img src="http://127.0.0.1:${other.port}/leak.png">
<script>requestAnimationFrame(()=>setTimeout(()=>{const d=document.createElement('div');d.style.height='300px';document.body.prepend(d);const t=performance.now();while(performance.now()-t<450){}},100));</script></body></html>`,
        { headers: { "content-type": "text/html" } },
      );
    if (u.pathname === "/s.css")
      return new Response("body{font-family:sans-serif}", { headers: { "content-type": "text/css" } });
    if (u.pathname === "/i.svg")
      return new Response(
        `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"><rect width="200" height="100" fill="red"/></svg>`,
        { headers: { "content-type": "image/svg+xml" } },
      );
    return new Response("nf", { status: 404 });
  },
});
const policy = new TargetPolicy([`127.0.0.1:${site.port}`]);
const agent = createSafeAgent(policy);
const cap = await runLab(`http://127.0.0.1:${site.port}/`, {
  executablePath: "/usr/bin/chromium",
  policy,
  agent,
  device: "desktop",
  throttling: "none",
  runs: 3,
  timeoutMs: 30000,
  maxMemoryMb: 2048,
  maxBytes: 32e6,
  userAgentName: "wpreport-lab",
});
console.log(JSON.stringify({ ...cap, runs: cap.runs.map((r) => ({ ...r, thumbnail: r.thumbnail?.length })) }, null, 1));
console.log("hits", hits);
site.stop(true);
other.stop(true);
await agent.close();
