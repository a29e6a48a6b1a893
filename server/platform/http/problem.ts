/**
 * RFC 9457 problem details: the one way this service reports an error.
 *
 * Every error leaves as `application/problem+json` with `type`, `title`, `status`,
 * `detail`, a stable machine-readable `code` (the catalogue: shared/problems.ts) and the
 * `request_id`.
 */

import { PROBLEM_CONTENT_TYPE, PROBLEMS, type ProblemCode } from "../../../shared/problems.ts";

export { PROBLEM_CONTENT_TYPE, PROBLEMS, type ProblemCode };

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ProblemCode;
  request_id: string;
  [extension: string]: unknown;
}

/** An error that becomes a problem+json response. Throw it from anywhere in a request. */
export class ApiProblem extends Error {
  readonly status: number;
  readonly title: string;

  constructor(
    readonly code: ProblemCode,
    readonly detail: string,
    readonly options: {
      /** Extra members of the problem object (RFC 9457 extensions), e.g. `resets_at`. */
      extensions?: Record<string, unknown>;
      /** Extra response headers, e.g. Retry-After or WWW-Authenticate. */
      headers?: Record<string, string>;
    } = {},
  ) {
    super(detail);
    this.name = "ApiProblem";
    this.status = PROBLEMS[code].status;
    this.title = PROBLEMS[code].title;
  }
}

/** The `type` URI of a code: a page on this service that explains it. */
export function problemType(baseUrl: string, code: ProblemCode): string {
  return `${baseUrl}/problems/${code}`;
}

export function problemBody(problem: ApiProblem, baseUrl: string, requestId: string): ProblemBody {
  return {
    ...problem.options.extensions,
    type: problemType(baseUrl, problem.code),
    title: problem.title,
    status: problem.status,
    detail: problem.detail,
    code: problem.code,
    request_id: requestId,
  };
}

export function problemResponse(
  problem: ApiProblem,
  baseUrl: string,
  requestId: string,
  extraHeaders: Record<string, string> = {},
): Response {
  const headers = new Headers({
    "content-type": PROBLEM_CONTENT_TYPE,
    "cache-control": "no-store",
    ...extraHeaders,
    ...problem.options.headers,
  });
  return new Response(JSON.stringify(problemBody(problem, baseUrl, requestId)), {
    status: problem.status,
    headers,
  });
}
