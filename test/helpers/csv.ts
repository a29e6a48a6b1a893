/**
 * A strict RFC 4180 reader for tests: CRLF records, fields quoted with doubled quotes inside.
 * Throws on anything else (a bare LF, a quote in an unquoted field, an unterminated quote), so
 * a test that parses the service's CSV also checks its framing.
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let index = 0;
  const endField = () => {
    row.push(field);
    field = "";
  };
  while (index < text.length) {
    const char = text[index] as string;
    if (char === '"' && field === "") {
      // A quoted field: up to the closing quote; "" is a quote.
      index++;
      for (;;) {
        if (index >= text.length) throw new Error("unterminated quoted field");
        const inner = text[index] as string;
        if (inner === '"') {
          if (text[index + 1] === '"') {
            field += '"';
            index += 2;
            continue;
          }
          index++;
          break;
        }
        field += inner;
        index++;
      }
      const next = text[index];
      if (next !== "," && next !== "\r" && next !== undefined) throw new Error(`text after a quoted field at ${index}`);
      continue;
    }
    if (char === ",") {
      endField();
      index++;
    } else if (char === "\r") {
      if (text[index + 1] !== "\n") throw new Error(`CR without LF at ${index}`);
      endField();
      rows.push(row);
      row = [];
      index += 2;
    } else if (char === "\n") {
      throw new Error(`bare LF at ${index}`);
    } else if (char === '"') {
      throw new Error(`quote inside an unquoted field at ${index}`);
    } else {
      field += char;
      index++;
    }
  }
  if (field !== "" || row.length > 0) throw new Error("the last record does not end with CRLF");
  return rows;
}
