import { tmpdir } from "node:os";
import path from "node:path";

// Loaded before every test file (bunfig.toml). Keeps server logs out of test output
// unless a developer asks for them with LOG_LEVEL.
process.env.LOG_LEVEL ??= "silent";
// Service processes the tests start inherit this environment: no WordPress.org or
// WPVulnerability lookups and no scheduled intel refresh (the machine has no internet; intel
// tests use local stubs).
process.env.WPORG_API_URL ??= "off";
process.env.WPVULNERABILITY_API_URL ??= "off";
process.env.INTEL_REFRESH_CRON ??= "off";
// A service or admin CLI a test starts without a DATA_DIR of its own opens a folder of this run,
// never the checkout's ./data (nor a DATA_DIR exported in the developer's shell), which may hold
// the database of a service the developer started from the README — and may be running now.
process.env.DATA_DIR = path.join(tmpdir(), `wpreport-tests-${process.pid}`);
