/**
 * On a pull request, the ref whose passing reports the service prefers as the baseline
 * (`prefer_ref`, docs/diff.md#the-baseline): the repository's default branch, in the form the
 * report's metadata stores refs (`git_ref`: GITHUB_REF on GitHub, CI_COMMIT_REF_NAME on GitLab,
 * BITBUCKET_BRANCH on Bitbucket, BRANCH_NAME in a Jenkins multibranch pipeline). On a merge or
 * pull request elsewhere: GitLab's default branch, Bitbucket's and Jenkins' target branch (they
 * do not name the default one). Pushes, schedules, other CI systems: undefined — the newest
 * passing report of the site and environment, whatever its ref.
 */
import { readFileSync } from "node:fs";

const PULL_REQUEST_EVENTS = new Set(["pull_request", "pull_request_target"]);

export function defaultBranchRef(env: Record<string, string | undefined>): string | undefined {
  if (env.GITHUB_EVENT_NAME !== undefined) {
    if (!PULL_REQUEST_EVENTS.has(env.GITHUB_EVENT_NAME) || !env.GITHUB_EVENT_PATH) return undefined;
    try {
      // The event's payload (what @actions/github reads as context.payload): the repository's default branch.
      const payload = JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, "utf8")) as {
        repository?: { default_branch?: unknown };
      };
      const branch = payload.repository?.default_branch;
      return typeof branch === "string" && branch !== "" ? `refs/heads/${branch}`.slice(0, 255) : undefined;
    } catch {
      return undefined;
    }
  }
  // GitLab: a merge request pipeline; refs are stored as branch names there.
  if (env.CI_MERGE_REQUEST_IID && env.CI_DEFAULT_BRANCH) return env.CI_DEFAULT_BRANCH.slice(0, 255);
  // Bitbucket: a pull request pipeline.
  if (env.BITBUCKET_PR_ID && env.BITBUCKET_PR_DESTINATION_BRANCH)
    return env.BITBUCKET_PR_DESTINATION_BRANCH.slice(0, 255);
  // Jenkins multibranch: a change request (pull or merge request) build.
  if (env.CHANGE_ID && env.CHANGE_TARGET) return env.CHANGE_TARGET.slice(0, 255);
  return undefined;
}
