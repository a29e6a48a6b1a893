/** The one definition of what site text may not carry (shared/untrusted-text.ts). */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { foldedText, oneLine, withoutControls } from "../../shared/untrusted-text.ts";

const FORBIDDEN = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069]/;

describe("untrusted text", () => {
  test("oneLine: escape sequences, line breaks and bidi overrides become spaces; the length is capped", () => {
    expect(oneLine("a\nb\u001b[31mred\u202Eevil\u2066", 100)).toBe("a b [31mred evil ");
    expect(oneLine("abcdef", 3)).toBe("abc");
  });

  test("withoutControls keeps tabs and line feeds, removes the rest", () => {
    expect(withoutControls("a\n\tb\u0007\u009bc\u2066\r")).toBe("a\n\tbc");
  });

  test("foldedText folds white space as spaces and marks a cut", () => {
    expect(foldedText("  a\n\tb\u0007c\u202Ed  ", 300)).toBe("a bcd");
    expect(foldedText("abcdef", 4)).toBe("abc…");
  });

  test("whatever the input, none of the outputs carries a forbidden character or a line break where one is not allowed", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 200 }), (text) => {
        expect(FORBIDDEN.test(oneLine(text)) || /[\n\t]/.test(oneLine(text))).toBe(false);
        expect(FORBIDDEN.test(withoutControls(text))).toBe(false);
        expect(FORBIDDEN.test(foldedText(text, 300)) || /\s{2}/.test(foldedText(text, 300))).toBe(false);
      }),
    );
  });
});
