/** The problem+json body as a schema, for the OpenAPI document. */
import { t } from "elysia";
import { PROBLEMS } from "./problem.ts";

export const ProblemSchema = t.Object(
  {
    type: t.String({ description: "URI of a page explaining this kind of problem" }),
    title: t.String(),
    status: t.Integer(),
    detail: t.String({ description: "What went wrong in this case, in plain words" }),
    code: t.UnionEnum(Object.keys(PROBLEMS) as [keyof typeof PROBLEMS, ...(keyof typeof PROBLEMS)[]], {
      description: "Stable machine-readable code",
    }),
    request_id: t.String({ description: "Also in the X-Request-Id header; quote it to support" }),
  },
  { additionalProperties: true, description: "RFC 9457 problem details (application/problem+json)" },
);

/** Error responses every authenticated route can give. */
export const AUTHENTICATED_ERRORS = {
  401: ProblemSchema,
  429: ProblemSchema,
} as const;
