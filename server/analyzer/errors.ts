/** Why an analysis produced no report at all (as opposed to a report with errors[]). */

/** The target (or a redirect of the homepage) is not allowed by the target policy. */
export class TargetNotAllowedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TargetNotAllowedError";
  }
}

/** No HTTP response at all from the homepage: DNS, refused, TLS, timeout. Not charged. */
export class SiteUnreachableError extends Error {
  constructor(
    readonly kind: string,
    message: string,
  ) {
    super(message);
    this.name = "SiteUnreachableError";
  }
}
