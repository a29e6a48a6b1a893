/**
 * Which real services the tests can use. Locally a missing PostgreSQL, Redis or WordPress
 * fixture skips the tests that need it (with a note); CI sets WPREPORT_REQUIRE_SERVICES=1
 * so that a missing service fails the run instead of silently skipping.
 */
import net from "node:net";

export const REQUIRE_SERVICES = process.env.WPREPORT_REQUIRE_SERVICES === "1";
export const POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
export const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
export const WORDPRESS_URL = process.env.TEST_WORDPRESS_URL ?? "http://127.0.0.1:8088/";
/** The fixture set up a second time: WP_PORT=8090 WP_HOST=localhost WP_THEME=twentytwentythree. */
export const WORDPRESS_VARIANT_URL = process.env.TEST_WORDPRESS_VARIANT_URL ?? "http://localhost:8090/";
/** The Bedrock-like site (test/fixtures/bedrock/setup.sh): core in /wp/, content in /app/. */
export const BEDROCK_URL = process.env.TEST_BEDROCK_URL ?? "http://127.0.0.2:8092/";
/** Its pull zone: the second origin serving the site's /app/ and /wp/wp-includes/ files. */
export const BEDROCK_CDN_URL = process.env.TEST_BEDROCK_CDN_URL ?? "http://127.0.0.3:8093/";

function reachable(url: string, defaultPort: number): Promise<boolean> {
  const parsed = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: parsed.hostname || "127.0.0.1", port: Number(parsed.port || defaultPort) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

async function available(name: string, url: string, port: number): Promise<boolean> {
  const ok = await reachable(url, port);
  if (!ok && REQUIRE_SERVICES)
    throw new Error(`${name} is required (WPREPORT_REQUIRE_SERVICES=1) but not reachable at ${url}`);
  if (!ok) console.warn(`[tests] ${name} not reachable at ${url}: its tests are skipped`);
  return ok;
}

export const HAS_POSTGRES = await available("PostgreSQL", POSTGRES_ADMIN_URL, 5432);
export const HAS_REDIS = await available("Redis", REDIS_URL, 6379);
export const HAS_WORDPRESS = await available("The WordPress fixture", WORDPRESS_URL, 80);
export const HAS_WORDPRESS_VARIANT = await available("The WordPress fixture variant", WORDPRESS_VARIANT_URL, 80);
export const HAS_BEDROCK = await available("The Bedrock-like WordPress fixture", BEDROCK_URL, 80);
