/**
 * Choosing a response's media type from the request's Accept header, q-values included
 * (RFC 9110 §12.5.1), with the `negotiator` package: `q=0` excludes a type, a wildcard range
 * (any type, any application type) takes the first one offered, and among equals the client's
 * order wins.
 */
import Negotiator from "negotiator";
import { ApiProblem } from "./problem.ts";

/**
 * The type to send, out of `available` (the first is the default). No Accept header, or an
 * empty one, takes the default. An Accept that rules out every available type is answered
 * `406 not_acceptable` rather than with a type the client said it cannot use (RFC 9110 lets a
 * server do either; a CI script asking for SARIF alone should not get JSON and fail later).
 */
export function chooseMediaType<T extends string>(request: Request, available: readonly [T, ...T[]]): T {
  const accept = request.headers.get("accept");
  if (!accept?.trim()) return available[0];
  const chosen = new Negotiator({ headers: { accept } }).mediaType(available);
  if (chosen) return chosen as T;
  throw new ApiProblem(
    "not_acceptable",
    `This resource is available as ${available.join(" or ")}; the Accept header allows neither.`,
    { extensions: { available } },
  );
}
