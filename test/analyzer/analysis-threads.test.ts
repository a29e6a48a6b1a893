/**
 * The analysis thread pool against real loopback sites: a report made on a thread equals the
 * one made in-process, "no report" errors come back as the classes the worker maps to
 * problems, an abort stops the analysis and leaves the pool usable, and more analyses than
 * threads wait their turn.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { analyze } from "../../server/analyzer/analyze.ts";
import { SiteUnreachableError, TargetNotAllowedError } from "../../server/analyzer/errors.ts";
import { createSafeAgent } from "../../server/analyzer/fetch/safe-agent.ts";
import { DEFAULT_CLIENT_LIMITS } from "../../server/analyzer/fetch/safe-client.ts";
import { TargetPolicy } from "../../server/analyzer/fetch/target-policy.ts";
import { emptyIntel } from "../../server/analyzer/intel/index.ts";
import { AnalysisThreads, poolSize } from "../../server/analyzer/threads/analysis-threads.ts";
import { freePort } from "../helpers/service.ts";
import { startBlog, startSlowSite, type TestSite } from "../helpers/sites.ts";

const UA = "wpreport-test";

describe("analysis threads", () => {
  const sites: TestSite[] = [];
  const pools: AnalysisThreads[] = [];
  afterAll(async () => {
    for (const site of sites) site.stop();
    await Promise.all(pools.map((pool) => pool.close()));
  });
  const pool = (allowlist: string[], threads = 1, perThread = 1) => {
    const analysisThreads = new AnalysisThreads(
      { allowlist, dnsServers: [], userAgent: UA, limits: DEFAULT_CLIENT_LIMITS },
      { threads, perThread },
    );
    pools.push(analysisThreads);
    return analysisThreads;
  };

  test("a report made on a thread is the one made in-process", async () => {
    const blog = startBlog();
    sites.push(blog);
    const allowlist = [`127.0.0.1:${new URL(blog.url).port}`];
    const policy = new TargetPolicy(allowlist);
    const agent = createSafeAgent(policy);
    const local = await analyze(
      blog.url,
      { agent, policy, userAgent: UA, intel: emptyIntel() },
      AbortSignal.timeout(10_000),
    );
    await agent.close();
    const threads = pool(allowlist);
    expect(threads.threads).toBe(0); // started on first use only
    const threaded = await threads.analyze(blog.url, AbortSignal.timeout(10_000));
    expect(threads.threads).toBe(1);

    expect(threaded.wordpress).toEqual(local.wordpress);
    expect(threaded.theme).toEqual(local.theme);
    expect(threaded.plugins).toEqual(local.plugins);
    expect(threaded.summary).toEqual(local.summary);
    expect(threaded.checks.map((check) => [check.id, check.status])).toEqual(
      local.checks.map((check) => [check.id, check.status]),
    );
    expect(threaded.wordpress?.version).toBe("6.4.2");
  });

  test("a target outside the policy and an unreachable site come back as their own errors", async () => {
    const closedPort = await freePort();
    const threads = pool([`127.0.0.1:${closedPort}`]);
    const refused = await threads
      .analyze(`http://127.0.0.1:${closedPort}/`, AbortSignal.timeout(5_000))
      .catch((e) => e);
    expect(refused).toBeInstanceOf(SiteUnreachableError);
    expect((refused as SiteUnreachableError).kind).toBe("refused");

    const outside = await threads.analyze("http://127.0.0.3:8/", AbortSignal.timeout(5_000)).catch((e) => e);
    expect(outside).toBeInstanceOf(TargetNotAllowedError);
  });

  test("an abort ends the analysis at once and the thread takes the next one", async () => {
    const slow = startSlowSite(60_000);
    const blog = startBlog();
    sites.push(slow, blog);
    const threads = pool([`127.0.0.1:${new URL(slow.url).port}`, `127.0.0.1:${new URL(blog.url).port}`]);
    const controller = new AbortController();
    const started = performance.now();
    const pending = threads.analyze(slow.url, controller.signal).catch((e) => e);
    await Bun.sleep(300);
    controller.abort();
    const outcome = await pending;
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(outcome).toBeInstanceOf(SiteUnreachableError);
    expect((outcome as SiteUnreachableError).kind).toBe("aborted"); // as in-process: the deadline passed

    const next = await threads.analyze(blog.url, AbortSignal.timeout(10_000));
    expect(next.wordpress?.detected).toBe(true);
    expect(threads.threads).toBe(1);
  });

  test("a thread runs several analyses; more than the pool holds wait their turn", async () => {
    const blog = startBlog();
    sites.push(blog);
    const threads = pool([`127.0.0.1:${new URL(blog.url).port}`], 2, 2);
    const results = await Promise.all(
      Array.from({ length: 7 }, () => threads.analyze(blog.url, AbortSignal.timeout(20_000))),
    );
    expect(results.map((result) => result.wordpress?.version)).toEqual(Array(7).fill("6.4.2"));
    expect(threads.threads).toBe(2);
  });

  test("pool size: no more threads than cores, the analyses spread over them", () => {
    expect(poolSize(4, 2)).toEqual({ threads: 2, perThread: 2 });
    expect(poolSize(5, 2)).toEqual({ threads: 2, perThread: 3 });
    expect(poolSize(1, 8)).toEqual({ threads: 1, perThread: 1 });
    expect(poolSize(16, 8)).toEqual({ threads: 8, perThread: 2 });
  });

  test("after close, analyses are refused", async () => {
    const threads = pool([]);
    await threads.close();
    expect(threads.analyze("http://127.0.0.1:1/", AbortSignal.timeout(1_000))).rejects.toThrow("closed");
  });
});
