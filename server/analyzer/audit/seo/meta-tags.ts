/** The homepage's title and meta description: present, and of a length search results can show. */
import { makeCheck } from "../catalogue.ts";
import type { Audit } from "../types.ts";

/**
 * Title length in characters. Google cuts titles at the width of its result column, about
 * 50–60 characters (Moz; Google documents no fixed number); under 10 a title can hardly
 * say what the site is about.
 */
const TITLE_MIN = 10;
const TITLE_MAX = 60;

/**
 * Description length in characters. Google's snippets show about 155–160 characters;
 * descriptions under 50 rarely describe a page (Moz, "Meta Description").
 */
const DESCRIPTION_MIN = 50;
const DESCRIPTION_MAX = 160;

export const auditMetaTags: Audit = ({ seo }) => {
  const checks = [];

  if (!seo.title) {
    checks.push(
      makeCheck(
        "seo.title",
        "fail",
        "The homepage has no <title> (or an empty one); search engines will make up a title for it.",
      ),
    );
    checks.push(makeCheck("seo.title_length", "skip", "The homepage has no title."));
  } else {
    const evidence = [`title: ${seo.title}`];
    checks.push(makeCheck("seo.title", "pass", "The homepage has a title.", evidence));
    const length = seo.title_length;
    if (length > TITLE_MAX) {
      checks.push(
        makeCheck(
          "seo.title_length",
          "warn",
          `The title is ${length} characters long; search results cut titles after about ${TITLE_MAX}.`,
          evidence,
        ),
      );
    } else if (length < TITLE_MIN) {
      checks.push(
        makeCheck(
          "seo.title_length",
          "warn",
          `The title is only ${length} characters long, too short to describe the site.`,
          evidence,
        ),
      );
    } else {
      checks.push(makeCheck("seo.title_length", "pass", `The title is ${length} characters long.`, evidence));
    }
  }

  if (!seo.meta_description) {
    const what = seo.meta_description === null ? "no meta description" : "an empty meta description";
    checks.push(
      makeCheck(
        "seo.meta_description",
        "fail",
        `The homepage has ${what}; search engines will pick a snippet from the page text instead.`,
      ),
    );
    checks.push(makeCheck("seo.meta_description_length", "skip", "The homepage has no meta description."));
    return checks;
  }
  const evidence = [`description: ${seo.meta_description}`];
  checks.push(makeCheck("seo.meta_description", "pass", "The homepage has a meta description.", evidence));
  const length = seo.meta_description_length;
  if (length > DESCRIPTION_MAX) {
    checks.push(
      makeCheck(
        "seo.meta_description_length",
        "warn",
        `The meta description is ${length} characters long; search results cut it after about ${DESCRIPTION_MAX}.`,
        evidence,
      ),
    );
  } else if (length < DESCRIPTION_MIN) {
    checks.push(
      makeCheck(
        "seo.meta_description_length",
        "warn",
        `The meta description is only ${length} characters long (under ${DESCRIPTION_MIN}).`,
        evidence,
      ),
    );
  } else {
    checks.push(
      makeCheck("seo.meta_description_length", "pass", `The meta description is ${length} characters long.`, evidence),
    );
  }
  return checks;
};
