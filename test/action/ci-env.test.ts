/**
 * What the CLI and the Action take from each CI system's variables (docs/ci.md): the report's
 * commit, ref and run link, the Idempotency-Key's run and attempt, and on a merge or pull
 * request the ref whose passing reports make the baseline — GitHub's, GitLab's, Jenkins' and
 * Bitbucket's, as those systems set them.
 */
import { describe, expect, test } from "bun:test";
import { ciMetadata } from "../../action/src/check.ts";
import { defaultBranchRef } from "../../action/src/default-branch.ts";
import { idempotencyKeyFor } from "../../shared/client.ts";

import { BITBUCKET, GITLAB, JENKINS, SHA } from "./ci-variables.ts";

const body = { url: "https://staging.example.com/" };

describe("CI variables", () => {
  test("GitLab: commit, branch, pipeline; a merge request prefers the default branch", () => {
    expect(ciMetadata(GITLAB, "staging")).toEqual({
      git_sha: SHA,
      git_ref: "main",
      environment: "staging",
      ci_run_url: GITLAB.CI_PIPELINE_URL,
    });
    expect(defaultBranchRef(GITLAB)).toBeUndefined();
    expect(defaultBranchRef({ ...GITLAB, CI_MERGE_REQUEST_IID: "7", CI_COMMIT_REF_NAME: "feature" })).toBe("main");
    expect(idempotencyKeyFor(GITLAB, body)).toMatch(/^ci-4242-9001-[0-9a-f]{32}$/);
  });

  test("Jenkins: the multibranch branch name (not the Git plugin's origin/…), the build; a change request prefers its target", () => {
    expect(ciMetadata(JENKINS, undefined)).toEqual({ git_sha: SHA, git_ref: "main", ci_run_url: JENKINS.BUILD_URL });
    const { BRANCH_NAME: _multibranch, ...freestyle } = JENKINS;
    expect(ciMetadata(freestyle, undefined).git_ref).toBe("origin/main");
    expect(defaultBranchRef(JENKINS)).toBeUndefined();
    expect(defaultBranchRef({ ...JENKINS, BRANCH_NAME: "PR-7", CHANGE_ID: "7", CHANGE_TARGET: "main" })).toBe("main");
    expect(idempotencyKeyFor(JENKINS, body)).toMatch(/^ci-jenkins-site-main-17-1-[0-9a-f]{32}$/);
  });

  test("Bitbucket: commit, branch, the pipeline's page; a pull request prefers its destination; keys per repository", () => {
    expect(ciMetadata(BITBUCKET, undefined)).toEqual({
      git_sha: SHA,
      git_ref: "main",
      ci_run_url: "https://bitbucket.org/acme/site/pipelines/results/17",
    });
    expect(defaultBranchRef({ ...BITBUCKET, BITBUCKET_PR_ID: "7", BITBUCKET_PR_DESTINATION_BRANCH: "main" })).toBe(
      "main",
    );
    expect(defaultBranchRef(BITBUCKET)).toBeUndefined();
    const key = idempotencyKeyFor(BITBUCKET, body);
    expect(key).toMatch(/^ci-acme_site_17-_0f1e2d3c-aaaa-bbbb-cccc-000000000001_-[0-9a-f]{32}$/);
    // Build 17 of another repository is another run.
    expect(idempotencyKeyFor({ ...BITBUCKET, BITBUCKET_REPO_FULL_NAME: "acme/shop" }, body)).not.toBe(key);
  });

  test("GitHub's variables come first where a runner sets several", () => {
    const github = { GITHUB_SHA: "f".repeat(40), GITHUB_REF: "refs/heads/main", GITHUB_RUN_ID: "1" };
    expect(ciMetadata({ ...GITLAB, ...github }, undefined).git_ref).toBe("refs/heads/main");
  });
});
