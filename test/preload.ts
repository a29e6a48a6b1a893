// Loaded before every test file (bunfig.toml). Keeps server logs out of test output
// unless a developer asks for them with LOG_LEVEL.
process.env.LOG_LEVEL ??= "silent";
