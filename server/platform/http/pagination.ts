/**
 * Cursor pagination's `Link` header (RFC 8288): the URL of the listing's next page — this
 * listing's own query with the cursor parameter set to the page's `next_cursor` — as
 * `<url>; rel="next"`. Nothing when there is no next page. One helper for every listing (reports,
 * sites, components, monitors, webhooks and their deliveries), whichever name its cursor has.
 */
export function nextPageLink(
  /** The listing's absolute URL without a query (`https://…/api/sites`). */
  listing: string,
  query: Record<string, unknown>,
  cursorParam: "before" | "after",
  cursor: string | null | undefined,
): { link?: string } {
  if (!cursor) return {};
  const next = new URL(listing);
  for (const [key, value] of Object.entries(query))
    if (value !== undefined && key !== cursorParam) next.searchParams.set(key, String(value));
  next.searchParams.set(cursorParam, cursor);
  return { link: `<${next}>; rel="next"` };
}
