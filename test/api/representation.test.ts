/**
 * finishRepresentation's refusals, which no route of the app produces today: a body that is
 * already encoded, `Cache-Control: no-transform`, a type that is not text, and 204/206.
 * (Compression and 304s of real responses: test/http-conventions.test.ts.)
 */
import { describe, expect, test } from "bun:test";
import zlib from "node:zlib";
import { finishRepresentation, isCompressibleType } from "../../server/platform/http/representation.ts";

const big = JSON.stringify({ items: Array.from({ length: 200 }, (_, i) => ({ i, name: `item ${i}` })) });
const request = (headers: Record<string, string> = { "accept-encoding": "gzip, br" }, method = "GET") =>
  new Request("http://wpreport.internal/x", { method, headers });

describe("finishRepresentation", () => {
  test("compresses a large JSON body and keeps its status and headers", async () => {
    const response = await finishRepresentation(
      request(),
      new Response(big, { status: 201, headers: { "content-type": "application/json", location: "/y" } }),
    );
    expect(response.status).toBe(201);
    expect(response.headers.get("location")).toBe("/y");
    expect(response.headers.get("content-encoding")).toBe("br");
    expect(zlib.brotliDecompressSync(Buffer.from(await response.arrayBuffer())).toString("utf8")).toBe(big);
  });

  test("leaves alone what must not be touched", async () => {
    const gzipped = zlib.gzipSync(big);
    const cases: [string, Response][] = [
      [
        "already encoded",
        new Response(gzipped, { headers: { "content-type": "application/json", "content-encoding": "gzip" } }),
      ],
      [
        "no-transform",
        new Response(big, { headers: { "content-type": "text/html", "cache-control": "no-transform" } }),
      ],
      ["not text", new Response(gzipped, { headers: { "content-type": "application/octet-stream" } })],
      ["no type", new Response(new Uint8Array(4096))],
      ["206", new Response(big, { status: 206, headers: { "content-type": "application/json" } })],
    ];
    for (const [label, original] of cases) {
      const before = original.headers.get("content-encoding");
      const response = await finishRepresentation(request(), original);
      expect({ label, encoding: response.headers.get("content-encoding") }).toEqual({ label, encoding: before });
    }
  });

  test("which types are compressible", () => {
    for (const type of [
      "application/json",
      "application/json; charset=utf-8",
      "application/problem+json",
      "application/sarif+json; charset=utf-8",
      "application/schema+json",
      "text/html; charset=utf-8",
      "text/css",
      "text/javascript",
      "image/svg+xml",
    ]) {
      expect({ type, compressible: isCompressibleType(type) }).toEqual({ type, compressible: true });
    }
    for (const type of ["image/png", "application/octet-stream", "application/zip", "image/svg", null]) {
      expect({ type, compressible: isCompressibleType(type) }).toEqual({ type, compressible: false });
    }
  });

  test("a strong ETag gets the coding's suffix; a weak one is kept", async () => {
    const strong = await finishRepresentation(
      request({ "accept-encoding": "gzip" }),
      new Response(big, { headers: { "content-type": "application/json", etag: '"abc"' } }),
    );
    expect(strong.headers.get("etag")).toBe('"abc-gzip"');
    const weak = await finishRepresentation(
      request({ "accept-encoding": "gzip" }),
      new Response(big, { headers: { "content-type": "application/json", etag: 'W/"abc"' } }),
    );
    expect(weak.headers.get("etag")).toBe('W/"abc"');
  });

  test("a body with a strong ETag is compressed once and served whole every time", async () => {
    const answer = () =>
      finishRepresentation(
        request({ "accept-encoding": "br" }),
        new Response(big, { headers: { "content-type": "application/json", etag: '"same-bytes"' } }),
      );
    const bodies: string[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await answer();
      expect(response.headers.get("etag")).toBe('"same-bytes-br"');
      bodies.push(zlib.brotliDecompressSync(Buffer.from(await response.arrayBuffer())).toString("utf8"));
    }
    expect(bodies).toEqual([big, big, big]);
  });
});
