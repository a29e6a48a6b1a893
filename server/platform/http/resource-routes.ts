/**
 * What the API's CRUD resources (monitors, webhooks and their deliveries) declare and answer
 * alike: the id in the path, the query of a page that is newest first, the page with its next
 * page's Link, and the 204 of a delete. Each feature keeps its routes and operations (their
 * words are its own); these are the parts that were written again for each.
 */
import { type TInteger, type TOptional, type TString, Type } from "@sinclair/typebox";
import { jsonDocument } from "./json-response.ts";
import { nextPageLink } from "./pagination.ts";

/** The path parameter `name` naming one resource, e.g. `monitor_id` ("The monitor's id (mon_…)"). */
export function idParam<K extends string>(name: K, what: string, prefix: string): Record<K, TString> {
  return { [name]: Type.String({ maxLength: 64, description: `The ${what}'s id (${prefix}_…)` }) } as Record<
    K,
    TString
  >;
}

/** A listing's query, newest first: `before` (the last page's next_cursor) and `limit`. */
export function olderPageQuery(
  what: string,
  size: { max: number; default: number },
): { before: TOptional<TString>; limit: TOptional<TInteger> } {
  return {
    before: Type.Optional(
      Type.String({ maxLength: 64, description: `Cursor: a ${what} id (next_cursor); returns older ones` }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: size.max, default: size.default, description: "Items per page" }),
    ),
  };
}

/** A page of a listing (cursor `before`), with the Link header of its next page when there is one. */
export function olderPageDocument(
  page: { next_cursor: string | null },
  /** The listing's absolute URL without a query. */
  listing: string,
  query: Record<string, unknown>,
): Response {
  const { link } = nextPageLink(listing, query, "before", page.next_cursor);
  return jsonDocument(page, link ? { link } : {});
}

/** The answer of a DELETE that deleted. */
export function deleted(): Response {
  return new Response(null, { status: 204, headers: { "cache-control": "no-store" } });
}
