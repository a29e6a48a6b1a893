/**
 * Feeds in the Wordfence v3 production format for tests: the checked-in sample
 * (wordfence-sample.json, written from the documented record format) and synthetic feeds of
 * any size built from the same record shape.
 */
import { readFileSync } from "node:fs";
import path from "node:path";

export const SAMPLE_FEED_FILE = path.join(import.meta.dir, "wordfence-sample.json");
export const SAMPLE_FEED_TEXT = readFileSync(SAMPLE_FEED_FILE, "utf8");
export const SAMPLE_AKISMET_ID = "0b1c6a1e-5d3f-4c2e-9a57-3f0d8c1e2a01";

/** One synthetic plugin record (`n` makes its id and slug unique). */
export function syntheticRecord(n: number, slug = `plugin-${n}`): Record<string, unknown> {
  const id = `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;
  return {
    id,
    title: `${slug} <= 1.${n % 10} - Synthetic record ${n}`,
    software: [
      {
        type: "plugin",
        name: slug,
        slug,
        affected_versions: {
          [`* - 1.${n % 10}`]: {
            from_version: "*",
            from_inclusive: true,
            to_version: `1.${n % 10}`,
            to_inclusive: true,
          },
        },
        patched: true,
        patched_versions: [`1.${(n % 10) + 1}`],
        remediation: "Update",
      },
    ],
    informational: false,
    description: "x".repeat(300),
    references: [`https://example.org/${id}`],
    cwe: { id: 79, name: "XSS", description: "" },
    cvss: { vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N", score: 6.1, rating: "Medium" },
    cve: null,
    published: "2026-01-01 00:00:00",
    updated: "2026-01-02 00:00:00",
    copyrights: {
      message: "m",
      defiant: { notice: "Copyright 2012-2026 Defiant Inc.", license: "l", license_url: "u" },
    },
  };
}

/** A feed of `count` synthetic records, as one JSON object keyed by id. */
export function syntheticFeed(count: number, first = 0): string {
  const parts: string[] = [];
  for (let n = first; n < first + count; n++) {
    const record = syntheticRecord(n);
    parts.push(`${JSON.stringify(record.id)}:${JSON.stringify(record)}`);
  }
  return `{${parts.join(",")}}`;
}
