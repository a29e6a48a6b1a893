/** Errors outside the API, for browsers: an HTML page instead of problem+json. */
import type { ApiProblem } from "../http/problem.ts";
import { requestContext } from "../http/request-context.ts";
import { type WebDeps, webContext } from "./context.ts";
import { ErrorPage, page } from "./render.tsx";

export async function htmlError(problem: ApiProblem, request: Request, deps: WebDeps): Promise<Response> {
  const ctx = await webContext(request, deps).catch(() => undefined);
  const message =
    problem.code === "not_found"
      ? "There is no page at this address."
      : problem.status >= 500
        ? `Something went wrong on our side. If it keeps happening, quote this reference: ${requestContext(request).id}.`
        : problem.detail;
  if (!ctx)
    return new Response(message, { status: problem.status, headers: { "content-type": "text/plain; charset=utf-8" } });
  return page(ctx, problem.title, <ErrorPage status={problem.status} message={message} />, problem.status);
}
