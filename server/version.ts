/** The API's version (semver of the v1 contract) — in the OpenAPI document and SARIF output. */
export const API_VERSION = "1.1.0";
