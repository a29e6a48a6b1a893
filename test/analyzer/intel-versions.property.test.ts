/**
 * Version matching on WordPress's real version strings — "6.8", "6.8.0", "5.0-beta",
 * "1.2.3.4", missing patch numbers — and ranges open on either side, as properties checked
 * by fast-check against a plain numeric model.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  compareVersions,
  describeRange,
  firstFix,
  inRange,
  type VersionRange,
} from "../../server/analyzer/intel/versions.ts";

/** 1 to 4 numeric parts, as core ("6.8"), plugins ("1.2.3") and a few others ("4.7.3.1") write them. */
const parts = fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 4 });
const release = parts.map((numbers) => numbers.join("."));
const preRelease = fc.constantFrom("alpha", "beta", "beta2", "RC1", "RC2");

/** The model: numeric parts compared one by one, missing parts counting as 0. */
function model(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const difference = (a[i] ?? 0) - (b[i] ?? 0);
    if (difference !== 0) return Math.sign(difference);
  }
  return 0;
}

const sign = (value: number | null) => (value === null ? null : Math.sign(value));

describe("compareVersions", () => {
  test("agrees with the numeric model for releases of 1 to 4 parts (6.8 = 6.8.0, 1.2.3 < 1.2.3.4)", () => {
    fc.assert(
      fc.property(parts, parts, (a, b) => {
        expect(sign(compareVersions(a.join("."), b.join(".")))).toBe(model(a, b));
      }),
      { numRuns: 2000 },
    );
  });

  test("is antisymmetric and reflexive", () => {
    fc.assert(
      fc.property(release, release, (a, b) => {
        expect(compareVersions(a, a)).toBe(0);
        expect(sign(compareVersions(a, b))).toBe(-(sign(compareVersions(b, a)) ?? 0) || 0);
      }),
    );
  });

  test("is transitive", () => {
    fc.assert(
      fc.property(release, release, release, (a, b, c) => {
        const ab = compareVersions(a, b) ?? 0;
        const bc = compareVersions(b, c) ?? 0;
        if (ab <= 0 && bc <= 0) expect(compareVersions(a, c) ?? 0).toBeLessThanOrEqual(0);
      }),
    );
  });

  test("a pre-release comes before its release and after the previous one (5.0-beta < 5.0 < 5.0.1)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 2, maxLength: 3 }),
        preRelease,
        (numbers, tag) => {
          const version = numbers.join(".");
          expect(sign(compareVersions(`${version}-${tag}`, version))).toBe(-1);
          const previous = [...numbers.slice(0, -1), (numbers.at(-1) ?? 0) - 1];
          if ((numbers.at(-1) ?? 0) > 0) expect(sign(compareVersions(`${version}-${tag}`, previous.join(".")))).toBe(1);
        },
      ),
    );
  });

  test("real examples", () => {
    expect(compareVersions("6.8", "6.8.0")).toBe(0);
    expect(sign(compareVersions("5.0-beta", "5.0"))).toBe(-1);
    expect(sign(compareVersions("5.0-beta", "5.0-RC1"))).toBe(-1);
    expect(sign(compareVersions("1.2.3.4", "1.2.3"))).toBe(1);
    expect(compareVersions("1.2.3.0", "1.2.3")).toBe(0);
    expect(sign(compareVersions("5.10", "5.9"))).toBe(1);
    expect(compareVersions("trunk", "1.0")).toBeNull();
  });
});

describe("inRange", () => {
  const range = (from: string | null, fromIn: boolean, to: string | null, toIn: boolean): VersionRange => ({
    from,
    from_inclusive: fromIn,
    to,
    to_inclusive: toIn,
  });

  test("matches exactly the model's interval, bounds open on either side or both", () => {
    const bound = fc.option(parts, { nil: null });
    fc.assert(
      fc.property(parts, bound, fc.boolean(), bound, fc.boolean(), (version, from, fromIn, to, toIn) => {
        const expected =
          (from === null || model(version, from) > 0 || (fromIn && model(version, from) === 0)) &&
          (to === null || model(version, to) < 0 || (toIn && model(version, to) === 0));
        const actual = inRange(version.join("."), range(from?.join(".") ?? null, fromIn, to?.join(".") ?? null, toIn));
        expect(actual).toBe(expected);
      }),
      { numRuns: 3000 },
    );
  });

  test("Wordfence's '* - 5.0.2' (to inclusive) and a fix-exclusive range", () => {
    const upTo = range(null, true, "5.0.2", true);
    expect(inRange("5.0.2", upTo)).toBe(true);
    expect(inRange("5.0", upTo)).toBe(true);
    expect(inRange("5.0.3", upTo)).toBe(false);
    expect(inRange("5.0.2.1", upTo)).toBe(false);
    const beforeFix = range("6.1", true, "6.1.10", false);
    expect(inRange("6.1", beforeFix)).toBe(true);
    expect(inRange("6.1.0", beforeFix)).toBe(true);
    expect(inRange("6.1.10", beforeFix)).toBe(false);
    expect(inRange("6.1-RC1", beforeFix)).toBe(false);
    expect(describeRange(upTo)).toBe("<= 5.0.2");
    expect(describeRange(beforeFix)).toBe(">= 6.1, < 6.1.10");
    expect(describeRange(range(null, true, null, true))).toBe("all versions");
  });

  test("a bound that is not a version never matches; all versions matches any version", () => {
    expect(inRange("1.0", range("unknown", true, null, true))).toBe(false);
    expect(inRange("1.0", range(null, true, null, true))).toBe(true);
    expect(inRange("trunk", range(null, true, null, true))).toBe(false);
  });
});

describe("firstFix", () => {
  test("the oldest patched version newer than the installed one that is not itself affected", () => {
    const affected = [
      { from: "6.1", from_inclusive: true, to: "6.1.9", to_inclusive: true },
      { from: "6.2", from_inclusive: true, to: "6.2.8", to_inclusive: true },
    ];
    expect(firstFix("6.1.5", ["6.2.9", "6.1.10"], affected)).toBe("6.1.10");
    expect(firstFix("6.2.1", ["6.2.9", "6.1.10"], affected)).toBe("6.2.9");
    expect(firstFix("6.2.9", ["6.2.9"], affected)).toBeNull();
  });

  test("property: the fix is newer than the version and outside every affected range", () => {
    fc.assert(
      fc.property(release, fc.array(release, { maxLength: 5 }), release, (version, patched, limit) => {
        const affected = [{ from: null, from_inclusive: true, to: limit, to_inclusive: true }];
        const fix = firstFix(version, patched, affected);
        if (fix === null) return;
        expect(compareVersions(fix, version) ?? 0).toBeGreaterThan(0);
        expect(inRange(fix, affected[0] as VersionRange)).toBe(false);
      }),
    );
  });
});
