/**
 * A graceful stop after the database dropped every connection for a while (a failover, a
 * connection-termination storm) still ends: pg-boss's workers could hang on a dropped
 * connection and keep the process from exiting on SIGTERM until its grace period ran out
 * (platform/deadline.ts). On PostgreSQL, where the queue listens for notifications.
 */
import { expect, test } from "bun:test";
import postgres from "postgres";
import { HAS_POSTGRES, POSTGRES_ADMIN_URL } from "../../helpers/env.ts";
import { startTestService } from "../../helpers/service.ts";

test.skipIf(!HAS_POSTGRES)(
  "the service stops after a connection-termination storm, with its queue workers hung",
  async () => {
    const service = await startTestService({ backend: "postgres" });
    const database = new URL(service.db.url as string).pathname.slice(1);
    const admin = postgres(POSTGRES_ADMIN_URL, { max: 1, onnotice: () => {} });
    try {
      const until = Date.now() + 6_000;
      while (Date.now() < until) {
        await admin`select pg_terminate_backend(pid) from pg_stat_activity
                    where datname = ${database} and pid <> pg_backend_pid()`;
        await Bun.sleep(250);
      }
    } finally {
      await admin.end();
    }
    await Bun.sleep(1_000);
    // Before the deadlines this never resolved (the test timed out); now it resolves.
    const stopped = await Promise.race([service.stop().then(() => "stopped"), Bun.sleep(25_000).then(() => "hung")]);
    expect(stopped).toBe("stopped");
  },
  60_000,
);
