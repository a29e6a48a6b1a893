/**
 * One PR comment per site, updated on every run instead of piling up: the comment carries a
 * hidden marker naming the site, and is found again by it.
 */
import { createHash } from "node:crypto";
import * as github from "@actions/github";

export function markerFor(url: string): string {
  return `<!-- wpreport:comment:${createHash("sha256").update(url).digest("hex").slice(0, 16)} -->`;
}

/** Creates or updates the comment; returns what happened, or null when not on a pull request. */
export async function upsertPrComment(token: string, url: string, body: string): Promise<"created" | "updated" | null> {
  const { context } = github;
  const number = context.payload.pull_request?.number;
  if (!number) return null;
  const octokit = github.getOctokit(token);
  const marker = markerFor(url);
  const text = `${marker}\n${body}`;
  const comments = await octokit.paginate(octokit.rest.issues.listComments, {
    ...context.repo,
    issue_number: number,
    per_page: 100,
  });
  const existing = comments.find((comment) => comment.body?.includes(marker));
  if (existing) {
    await octokit.rest.issues.updateComment({ ...context.repo, comment_id: existing.id, body: text });
    return "updated";
  }
  await octokit.rest.issues.createComment({ ...context.repo, issue_number: number, body: text });
  return "created";
}
