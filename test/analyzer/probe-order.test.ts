/**
 * The order gather asks a site, and how many connections it uses, seen from a real local
 * HTTP/1.1 site (test/analyzer/remote-site.ts) that logs every request with the client's TCP
 * connection and can hold answers. What is asked while an answer is held cannot depend on
 * it: that is how speculation and "one wave" are shown without timing anything.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { analyze } from "../../server/analyzer/analyze.ts";
import { EMPTY_DIRECTORY, type NameLookup } from "../../server/analyzer/detect/finders/directory.ts";
import { NAMES_LOOKUP_TIMEOUT_MS } from "../../server/analyzer/detect/finders/names-question.ts";
import { REST_INDEX_FIELDS } from "../../server/analyzer/detect/rest.ts";
import { createSafeAgent, MAX_CONNECTIONS_PER_SITE } from "../../server/analyzer/fetch/safe-agent.ts";
import { DEFAULT_CLIENT_LIMITS } from "../../server/analyzer/fetch/safe-client.ts";
import { TargetPolicy } from "../../server/analyzer/fetch/target-policy.ts";
import { type RemoteSite, startRemoteSite } from "./remote-site.ts";

const UA = "wpreport-test";
/** The REST root as gather asks it: for the fields it reads (detect/rest.ts). */
const REST_INDEX = `/wp-json/?_fields=${REST_INDEX_FIELDS}`;

describe("gather over HTTP/1.1", () => {
  let site: RemoteSite;
  let policy: TargetPolicy;
  beforeAll(() => {
    site = startRemoteSite();
    policy = new TargetPolicy([`127.0.0.1:${new URL(site.url).port}`]);
  });
  afterAll(() => site.stop());

  async function analyzeOnce(limits = DEFAULT_CLIENT_LIMITS) {
    site.log.length = 0;
    const agent = createSafeAgent(policy);
    try {
      return await analyze(site.url, { agent, policy, userAgent: UA, limits }, AbortSignal.timeout(20_000));
    } finally {
      await agent.close();
    }
  }
  const indexOf = (path: string) => site.log.findIndex((entry) => entry.path === path);

  test("REST users are asked beside the REST root (speculatively, from the homepage's REST link), not after it", async () => {
    const rootHeld = site.hold(
      (log) => log.some((entry) => entry.path === "/wp-json/wp/v2/users?per_page=100"),
      (entry) => entry.path === REST_INDEX,
    );
    const report = await analyzeOnce();
    expect(await rootHeld).toBe(true);
    // Kept, since the advertised root was the root: the users route names them.
    expect(report.security?.users.find((user) => user.username === "admin")?.sources).toContain("rest_api");
    // The root is asked for the fields that are read; the report names the root as the site serves it.
    expect(report.wordpress?.rest_api_url).toBe(`${site.url}wp-json/`);
    expect(report.wordpress?.rest_namespaces).toContain("contact-form-7/v1");
  });

  test("the names index is asked beside the wave: no probe waits for its answer", async () => {
    site.log.length = 0;
    let release = () => {};
    const answered = new Promise<void>((resolve) => {
      release = resolve;
    });
    let asked = 0;
    const names: NameLookup = async () => {
      asked += 1;
      await answered;
      return EMPTY_DIRECTORY;
    };
    const agent = createSafeAgent(policy);
    try {
      const report = analyze(site.url, { agent, policy, userAgent: UA, names }, AbortSignal.timeout(20_000));
      // While the lookup has not answered, the wave goes out (a bounded wait, not a timing:
      // shorter than the lookup's own timeout, after which gather would go on without it).
      let waveOut = false;
      for (let waited = 0; waited < NAMES_LOOKUP_TIMEOUT_MS - 500 && !waveOut; waited += 20) {
        waveOut = [REST_INDEX, "/feed/", "/robots.txt", "/.env"].every((path) => indexOf(path) >= 0);
        if (!waveOut) await Bun.sleep(20);
      }
      release();
      await report;
      expect(asked).toBeGreaterThan(0);
      expect(waveOut).toBe(true);
      expect((await report).errors.filter((error) => error.kind === "names_unavailable")).toEqual([]);
    } finally {
      release();
      await agent.close();
    }
  });

  test("a chain's next link (oEmbed, parent theme, a plugin named by the REST API) goes before what is left of the first wave", async () => {
    const report = await analyzeOnce();
    const firstAsset = site.log.findIndex((entry) => entry.path.includes("?ver="));
    expect(firstAsset).toBeGreaterThan(0);
    const followUps = [
      site.log.findIndex((entry) => entry.path.startsWith("/wp-json/oembed/1.0/embed?url=")),
      indexOf("/wp-content/themes/parent/style.css"),
      indexOf("/wp-content/plugins/contact-form-7/readme.txt"),
    ];
    for (const index of followUps) {
      expect(index).toBeGreaterThan(0);
      expect(index).toBeLessThan(firstAsset);
    }
    expect(report.theme?.parent?.slug).toBe("parent");
    // The exposed files that are not PHP scripts are asked HEAD first over HTTP/1.1 too (a missing
    // one then costs a WordPress site no 404 page), and every HEAD keeps its connection: the
    // whole report, HEADs included, goes over the agent's few connections.
    const heads = site.log.filter((entry) => entry.method === "HEAD").map((entry) => entry.path);
    expect(heads).toContain("/.env");
    expect(heads).toContain("/.git/HEAD");
    expect(heads.length).toBeGreaterThanOrEqual(10);
    expect(heads.filter((path) => path.endsWith(".php"))).toEqual([]);
    expect(new Set(site.log.map((entry) => entry.connection)).size).toBeLessThanOrEqual(MAX_CONNECTIONS_PER_SITE);
    expect(report.security?.exposed_files).toEqual([]);
  });

  test(`at most ${MAX_CONNECTIONS_PER_SITE} connections to the site, even when a client would send more at once`, async () => {
    expect(MAX_CONNECTIONS_PER_SITE).toBeLessThanOrEqual(6);
    // With the default limits.
    const held = site.hold(
      (log) => log.length >= 1 + MAX_CONNECTIONS_PER_SITE,
      (entry) => entry.path !== "/",
    );
    await analyzeOnce();
    expect(await held).toBe(true); // six were in flight at once
    expect(site.connections()).toBeLessThanOrEqual(MAX_CONNECTIONS_PER_SITE);

    // A client allowed 20 in flight: the agent still opens no more than its cap.
    const pressed = site.hold(
      (log) => log.length >= 1 + MAX_CONNECTIONS_PER_SITE,
      (entry) => entry.path !== "/",
    );
    await analyzeOnce({ ...DEFAULT_CLIENT_LIMITS, concurrency: 20 });
    expect(await pressed).toBe(true);
    expect(site.connections()).toBeLessThanOrEqual(MAX_CONNECTIONS_PER_SITE);
    expect(site.log.length).toBeGreaterThan(30);
  });
});
