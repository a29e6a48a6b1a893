// Loaded before every test file (bunfig.toml). Keeps server logs out of test output
// unless a developer asks for them with LOG_LEVEL.
process.env.LOG_LEVEL ??= "silent";
// Service processes the tests start inherit this environment: no WordPress.org or
// WPVulnerability lookups and no scheduled intel refresh (the machine has no internet; intel
// tests use local stubs).
process.env.WPORG_API_URL ??= "off";
process.env.WPVULNERABILITY_API_URL ??= "off";
process.env.INTEL_REFRESH_CRON ??= "off";
