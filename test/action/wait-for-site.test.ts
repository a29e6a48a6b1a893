/** wait-for-site: polls until the site answers below 500, bounded by its time limit. */
import { expect, test } from "bun:test";
import { waitForSite } from "../../action/src/wait-for-site.ts";
import { freePort } from "../helpers/service.ts";
import { startSite } from "../helpers/sites.ts";

test("waits through 503s until the deploy preview answers", async () => {
  let calls = 0;
  const site = startSite({ "/": () => new Response("starting", { status: ++calls < 3 ? 503 : 200 }) });
  const log: string[] = [];
  try {
    const ready = await waitForSite(
      site.url,
      30,
      (line) => log.push(line),
      () => Promise.resolve(),
    );
    expect(ready).toBe(true);
    expect(calls).toBe(3);
    expect(log).toEqual(["The site answered 503; waiting…", "The site answered 503; waiting…"]);
  } finally {
    site.stop();
  }
});

test("gives up at the time limit when nothing answers", async () => {
  const port = await freePort();
  const started = Date.now();
  const ready = await waitForSite(`http://127.0.0.1:${port}/`, 3, () => {});
  expect(ready).toBe(false);
  expect(Date.now() - started).toBeLessThan(6_000);
});
