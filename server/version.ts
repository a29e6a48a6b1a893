/** The API's version (semver of the v1 contract) — in the OpenAPI document and SARIF output. */
export const API_VERSION = "1.2.0";

/** How the service introduces itself to the sites it analyses and to the intel sources. */
export const USER_AGENT = "wpreport/0.1 (WordPress site analyzer; +https://github.com/wpreport/wpreport)";
