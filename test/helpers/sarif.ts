/**
 * Validates SARIF the way code scanning does: the official SARIF 2.1.0 JSON Schema (rtm.5,
 * shipped by @microsoft/jest-sarif) through Ajv, then GitHub's documented requirements on
 * top of the schema ("SARIF support for code scanning" and its upload limits), which the
 * schema alone does not express.
 *
 * Ajv options, and why: the schema is JSON Schema draft-04 (`"$schema": ".../draft-04/schema#"`,
 * `id` rather than `$id`), which Ajv 8's default class does not read, so the draft-04 class
 * (ajv-draft-04) is used. Ajv's strict mode stays on except for two rules the official schema
 * itself breaks: `strictRequired` (its `anyOf: [{ required: ["index"] }, …]` name properties
 * declared beside, not inside, the subschema) and `unicodeRegExp` (the `language` pattern
 * `^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$` has a stray `]`, legal in an ECMA-262 regular
 * expression but not under the `u` flag Ajv adds by default).
 */
import { expect } from "bun:test";
import schema from "@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json";
import Ajv from "ajv-draft-04";
import addFormats from "ajv-formats";
import type { Log, ReportingDescriptor, Result, Run } from "sarif";

const ajv = new Ajv({ allErrors: true, strictRequired: false, unicodeRegExp: false });
addFormats(ajv);
const validateSchema = ajv.compile(schema);

/** GitHub's limits for one upload (docs: "Uploading a SARIF file to GitHub", validation limits). */
export const GITHUB_LIMITS = {
  runsPerFile: 20,
  resultsPerRun: 25_000,
  rulesPerRun: 25_000,
  tagsPerRule: 20,
  locationsPerResult: 10,
  descriptionLength: 1024,
};

/** The schema's complaints, as "path: message" lines (empty when valid). */
export function schemaErrors(log: unknown): string[] {
  if (validateSchema(log)) return [];
  return (validateSchema.errors ?? []).map((error) => `${error.instancePath || "/"}: ${error.message}`);
}

/** GitHub code scanning's documented requirements the schema does not check (empty when met). */
export function githubProblems(log: Log): string[] {
  const problems: string[] = [];
  const runs = log.runs ?? [];
  if (runs.length > GITHUB_LIMITS.runsPerFile) problems.push(`${runs.length} runs (max ${GITHUB_LIMITS.runsPerFile})`);
  runs.forEach((run: Run, r) => {
    const at = `runs[${r}]`;
    if (!run.tool?.driver?.name) problems.push(`${at}: tool.driver.name is required`);
    // upload-sarif refuses a run without a results array ("Missing 'results' array in run").
    if (!Array.isArray(run.results)) problems.push(`${at}: results must be an array`);
    const rules = run.tool?.driver?.rules ?? [];
    const results = run.results ?? [];
    if (results.length > GITHUB_LIMITS.resultsPerRun) problems.push(`${at}: ${results.length} results`);
    if (rules.length > GITHUB_LIMITS.rulesPerRun) problems.push(`${at}: ${rules.length} rules`);
    const id = run.automationDetails?.id;
    // "<category>/<run id>": the category is everything before the last slash.
    if (id !== undefined && !/^[^/].*\/[^/]*$/.test(id))
      problems.push(`${at}: automationDetails.id "${id}" has no category/`);
    rules.forEach((rule: ReportingDescriptor, i) => {
      problems.push(...ruleProblems(rule, `${at}.rules[${i}]`));
    });
    const ruleIds = rules.map((rule) => rule.id);
    if (new Set(ruleIds).size !== ruleIds.length) problems.push(`${at}: rule ids are not unique`);
    results.forEach((result: Result, i) => {
      problems.push(...resultProblems(result, ruleIds, `${at}.results[${i}]`));
    });
    const unsuccessful = (run.invocations ?? []).some((invocation) => !invocation.executionSuccessful);
    if (unsuccessful) {
      // Our own rule: a run that did not complete reports why, and no results.
      if (results.length > 0) problems.push(`${at}: an unsuccessful run has results`);
      const notes = (run.invocations ?? []).flatMap((invocation) => invocation.toolExecutionNotifications ?? []);
      if (notes.length === 0) problems.push(`${at}: an unsuccessful run says nothing about why`);
    }
  });
  return problems;
}

function ruleProblems(rule: ReportingDescriptor, at: string): string[] {
  const problems: string[] = [];
  const text = (name: string, value: { text?: string } | undefined) => {
    if (!value?.text) problems.push(`${at}: ${name}.text is required`);
    else if (value.text.length > GITHUB_LIMITS.descriptionLength) problems.push(`${at}: ${name}.text is too long`);
  };
  if (!rule.id) problems.push(`${at}: id is required`);
  text("shortDescription", rule.shortDescription);
  text("fullDescription", rule.fullDescription);
  if (!rule.help?.text) problems.push(`${at}: help.text is required`);
  const properties = (rule.properties ?? {}) as Record<string, unknown>;
  const tags = (properties.tags ?? []) as string[];
  if (new Set(tags).size !== tags.length) problems.push(`${at}: tags are not unique`);
  if (tags.length > GITHUB_LIMITS.tagsPerRule) problems.push(`${at}: ${tags.length} tags`);
  const severity = properties["security-severity"];
  if (severity !== undefined) {
    const score = typeof severity === "string" && /^\d+(\.\d+)?$/.test(severity) ? Number(severity) : Number.NaN;
    if (!(score > 0 && score <= 10))
      problems.push(`${at}: security-severity must be a number from 0.1 to 10 as a string`);
  }
  if (tags.includes("security") && severity === undefined)
    problems.push(`${at}: a security rule without security-severity is not shown as a security alert`);
  const precision = properties.precision;
  if (precision !== undefined && !["very-high", "high", "medium", "low"].includes(precision as string))
    problems.push(`${at}: precision "${precision}"`);
  const problemSeverity = properties["problem.severity"];
  if (problemSeverity !== undefined && !["error", "warning", "recommendation"].includes(problemSeverity as string))
    problems.push(`${at}: problem.severity "${problemSeverity}"`);
  return problems;
}

function resultProblems(result: Result, ruleIds: string[], at: string): string[] {
  const problems: string[] = [];
  if (!result.ruleId || !ruleIds.includes(result.ruleId)) problems.push(`${at}: ruleId names no rule of the run`);
  if (result.ruleIndex !== undefined && ruleIds[result.ruleIndex] !== result.ruleId)
    problems.push(`${at}: ruleIndex does not point at ruleId`);
  if (!result.message?.text) problems.push(`${at}: message.text is required`);
  // Newlines separate our own lines; any other control character came from a site.
  else if (/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/.test(result.message.text))
    problems.push(`${at}: control characters in the message`);
  const locations = result.locations ?? [];
  // "locationFromSarifResult: expected at least one location" otherwise.
  if (locations.length === 0) problems.push(`${at}: at least one location is required`);
  if (locations.length > GITHUB_LIMITS.locationsPerResult) problems.push(`${at}: ${locations.length} locations`);
  locations.forEach((location, i) => {
    const physical = location.physicalLocation;
    const uri = physical?.artifactLocation?.uri;
    if (!uri) problems.push(`${at}.locations[${i}]: physicalLocation.artifactLocation.uri is required`);
    // A URI with a scheme other than the checkout's (file) makes the upload fail; a path from
    // the repository root is what code scanning matches against files.
    else if (/^[a-z][a-z0-9+.-]*:/i.test(uri) || uri.startsWith("/"))
      problems.push(`${at}.locations[${i}]: uri "${uri}" is not relative to the repository`);
    if (!(Number.isInteger(physical?.region?.startLine) && (physical?.region?.startLine ?? 0) >= 1))
      problems.push(`${at}.locations[${i}]: region.startLine is required`);
  });
  const fingerprints = Object.entries(result.partialFingerprints ?? {});
  if (fingerprints.length === 0) problems.push(`${at}: partialFingerprints are missing (alerts would not be tracked)`);
  return problems;
}

/** Asserts that `log` is SARIF 2.1.0 that GitHub code scanning accepts; returns it typed. */
export function expectValidSarif(log: unknown): Log {
  expect(schemaErrors(log)).toEqual([]);
  expect(githubProblems(log as Log)).toEqual([]);
  return log as Log;
}
