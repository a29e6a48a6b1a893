/**
 * Charging is atomic (docs/plans.md): with k credits left, N simultaneous generate-report
 * calls produce exactly k reports and N−k quota_exhausted — on one instance, and on two
 * instances sharing one PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { quotaPeriod } from "../../server/platform/quota-period.ts";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../helpers/databases.ts";
import { HAS_POSTGRES } from "../helpers/env.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { startBlog, type TestSite } from "../helpers/sites.ts";

const CALLS = 50;
const LEFT = 7;

async function burst(instances: TestService[], site: TestSite) {
  const primary = instances[0] as TestService;
  const { token, accountId } = await primary.token(undefined, "starter");
  const { sql } = primary.db;
  // 43 of 50 used: 7 credits left. Lift the rate limit so only the quota decides.
  await primary.running.services.accounts.setRateLimitOverride(accountId, 10_000);
  await sql`insert into usage_periods (account_id, period_start, used) values (${accountId}, ${quotaPeriod().key}, ${50 - LEFT})`;

  const responses = await Promise.all(
    Array.from({ length: CALLS }, (_, i) =>
      (instances[i % instances.length] as TestService).call("POST", "/api/generate-report", {
        token,
        body: { url: site.url },
      }),
    ),
  );
  const statuses = responses.map((response) => response.status);
  for (const r of responses) if (r.status !== 201 && r.status !== 402) console.log(r.status, JSON.stringify(r.body));
  expect(statuses.filter((status) => status === 201).length).toBe(LEFT);
  expect(statuses.filter((status) => status === 402).length).toBe(CALLS - LEFT);
  for (const response of responses.filter((r) => r.status === 402)) {
    expect(response.body.code).toBe("quota_exhausted");
  }
  const usage = await primary.call("GET", "/api/usage", { token });
  expect(usage.body).toMatchObject({ quota: 50, used: 50, in_progress: 0, remaining: 0 });
  const [count] = await sql`select count(*)::int as n from reports where account_id = ${accountId}`;
  expect(count?.n).toBe(LEFT);
  const [held] = await sql`select count(*)::int as n from credit_reservations where account_id = ${accountId}`;
  expect(held?.n).toBe(0);
}

describe.each(BACKENDS)("quota under concurrency on %s", (backend) => {
  let service: TestService;
  let site: TestSite;
  beforeAll(async () => {
    service = await startTestService({ backend });
    site = startBlog();
  });
  afterAll(async () => {
    await service.stop();
    site.stop();
  });

  test(`${CALLS} simultaneous calls with ${LEFT} credits left → exactly ${LEFT} reports`, async () => {
    await burst([service], site);
  });
});

describe.skipIf(!HAS_POSTGRES)("quota under concurrency across two instances on one PostgreSQL", () => {
  let db: TestDatabase;
  let instances: TestService[];
  let site: TestSite;
  beforeAll(async () => {
    db = await createTestDatabase("postgres");
    instances = [await startTestService({ db }), await startTestService({ db })];
    site = startBlog();
  });
  afterAll(async () => {
    for (const instance of instances) await instance.stop();
    await db.destroy();
    site.stop();
  });

  test(`${CALLS} calls spread over two instances with ${LEFT} credits left → exactly ${LEFT} reports`, async () => {
    await burst(instances, site);
  });
});
