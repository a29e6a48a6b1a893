/** Variables as GitLab CI, Jenkins (a multibranch pipeline) and Bitbucket Pipelines set them for a push to main. */
export const SHA = "0123456789abcdef0123456789abcdef01234567";

export const GITLAB = {
  GITLAB_CI: "true",
  CI_PIPELINE_ID: "4242",
  CI_JOB_ID: "9001",
  CI_JOB_NAME: "wpreport",
  CI_COMMIT_SHA: SHA,
  CI_COMMIT_REF_NAME: "main",
  CI_DEFAULT_BRANCH: "main",
  CI_PIPELINE_URL: "https://gitlab.example.com/acme/site/-/pipelines/4242",
};
export const JENKINS = {
  JENKINS_URL: "https://jenkins.example.com/",
  BUILD_TAG: "jenkins-site-main-17",
  BUILD_URL: "https://jenkins.example.com/job/site/job/main/17/",
  BRANCH_NAME: "main",
  GIT_BRANCH: "origin/main",
  GIT_COMMIT: SHA,
};
export const BITBUCKET = {
  CI: "true",
  BITBUCKET_BUILD_NUMBER: "17",
  BITBUCKET_REPO_FULL_NAME: "acme/site",
  BITBUCKET_STEP_UUID: "{0f1e2d3c-aaaa-bbbb-cccc-000000000001}",
  BITBUCKET_COMMIT: SHA,
  BITBUCKET_BRANCH: "main",
  BITBUCKET_GIT_HTTP_ORIGIN: "http://bitbucket.org/acme/site",
};
