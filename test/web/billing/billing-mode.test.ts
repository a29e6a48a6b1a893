/** BILLING_MODE and TRUST_PROXY as the config reads them, and what start-up says about billing. */
import { describe, expect, test } from "bun:test";
import { announceBillingMode } from "../../../server/billing/billing-mode.ts";
import { createLogger } from "../../../server/platform/logger.ts";
import { loadConfig } from "../../../server/start/config.ts";
import { configProblems } from "../../helpers/config.ts";

const STRIPE = { STRIPE_SECRET_KEY: "sk_test_1", STRIPE_WEBHOOK_SECRET: "whsec_1", STRIPE_PRICES: "starter=price_1" };

const problemsOf = configProblems;

describe("billing mode", () => {
  test("without Stripe, test mode needs BILLING_MODE=test: no address, loopback or not, turns it on", () => {
    const mode = (env: Record<string, string>) => loadConfig(env).billing.billingMode;
    expect(mode({})).toBe("off");
    expect(mode({ PUBLIC_BASE_URL: "http://localhost:3000" })).toBe("off");
    expect(mode({ PUBLIC_BASE_URL: "http://127.0.0.1:3000" })).toBe("off");
    expect(mode({ PUBLIC_BASE_URL: "http://[::1]:3000" })).toBe("off");
    expect(mode({ BILLING_MODE: "test" })).toBe("test");
    expect(mode({ PUBLIC_BASE_URL: "https://wpreport.example" })).toBe("off");
    expect(mode({ PUBLIC_BASE_URL: "http://10.0.0.5:3000" })).toBe("off");
    expect(mode({ PUBLIC_BASE_URL: "https://wpreport.example", BILLING_MODE: "test" })).toBe("test");
    expect(mode({ BILLING_MODE: "off" })).toBe("off");
    expect(mode({ ...STRIPE })).toBe("stripe");
  });

  test("contradictions and unknown modes are configuration errors", () => {
    expect(problemsOf({ BILLING_MODE: "free" })).toEqual(['BILLING_MODE must be one of stripe, test, off, got "free"']);
    expect(problemsOf({ BILLING_MODE: "stripe" })).toEqual(["BILLING_MODE=stripe needs the STRIPE_* settings"]);
    expect(problemsOf({ ...STRIPE, BILLING_MODE: "test" })).toEqual([
      "BILLING_MODE=test cannot be used with the STRIPE_* settings",
    ]);
    expect(loadConfig({}).platform.publicBaseUrlSet).toBe(false);
    expect(loadConfig({ PUBLIC_BASE_URL: "http://localhost:3000" }).platform.publicBaseUrlSet).toBe(true);
  });

  test("start-up warns loudly about explicit test mode and about no billing", () => {
    const lines: string[] = [];
    const logger = createLogger("info", (line) => lines.push(line));
    const levels = (mode: "stripe" | "test" | "off") => {
      lines.length = 0;
      announceBillingMode(
        { billing: { billingMode: mode }, platform: { publicBaseUrl: "https://wpreport.example" } },
        logger,
      );
      return lines.map((line) => JSON.parse(line) as { level: string; msg: string });
    };
    const test = levels("test");
    expect(test).toHaveLength(1);
    expect(test[0]?.level).toBe("warn");
    expect(test[0]?.msg).toStartWith("BILLING TEST MODE: every user can switch to any plan");
    expect(levels("off")[0]?.level).toBe("warn");
    expect(levels("stripe")).toEqual([]);
  });
});

describe("TRUST_PROXY", () => {
  test("false, true (one proxy) or a number of proxies", () => {
    const hops = (value: string) => loadConfig({ TRUST_PROXY: value }).platform.trustProxy;
    expect([hops("false"), hops("no"), hops("0"), hops("true"), hops("yes"), hops("1"), hops("2")]).toEqual([
      0, 0, 0, 1, 1, 1, 2,
    ]);
    expect(loadConfig({}).platform.trustProxy).toBe(0);
    expect(problemsOf({ TRUST_PROXY: "maybe" })).toEqual([
      'TRUST_PROXY must be true, false or the number of proxies in front (0-10), got "maybe"',
    ]);
    expect(problemsOf({ TRUST_PROXY: "11" })).toHaveLength(1);
  });
});
