/**
 * Scripts WordPress core loads by default that most sites can do without: the emoji
 * detection script and jQuery Migrate. Found in the page model (script tags and their
 * inline text); the facts don't name individual scripts.
 */
import { resolveUrl } from "../../artifacts.ts";
import type { PageModel } from "../../parse/page.ts";
import { siteUrl } from "../../untrusted-text.ts";
import { makeCheck } from "../catalogue.ts";
import type { Audit } from "../types.ts";

/** Where WordPress's emoji loader shows itself, as evidence; null when it is not on the page. */
function emojiLoader(page: PageModel, base: string): string | null {
  for (const script of page.scripts) {
    if (script.src && /\/wp-emoji(?:-release)?(?:\.min)?\.js/i.test(script.src)) {
      return siteUrl(resolveUrl(script.src, base)?.toString() ?? script.src);
    }
    // WordPress < 6.9: inline `window._wpemojiSettings = {…}` + loader in <head>;
    // 6.9+: <script id="wp-emoji-settings" type="application/json"> + a module loader.
    if (script.attrs.id === "wp-emoji-settings" || /_wpemojiSettings|"concatemoji"\s*:/.test(script.text)) {
      const source = /"concatemoji"\s*:\s*"([^"]+)"/.exec(script.text)?.[1]?.replaceAll("\\/", "/");
      const url = resolveUrl(source, base);
      return url ? `emoji loader for ${siteUrl(url.toString())}` : "inline emoji settings (_wpemojiSettings)";
    }
  }
  return null;
}

const JQUERY = /\/jquery(?:\.min)?\.js(?:[?#]|$)/i;
const JQUERY_MIGRATE = /\/jquery-migrate(?:\.min)?\.js(?:[?#]|$)/i;

/** Script tags whose src matches, or whose WordPress handle id (`<handle>-js`) is `id`. */
function scriptsLike(page: PageModel, base: string, pattern: RegExp, id: string): string[] {
  return page.scripts
    .filter((script) => (script.src && pattern.test(script.src)) || script.attrs.id === id)
    .map((script) => siteUrl(resolveUrl(script.src, base)?.toString() ?? `script#${id}`));
}

export const auditWordPressExtras: Audit = ({ wordpress, homepage }) => {
  if (!wordpress.detected) {
    const message = "The site does not look like WordPress; this WordPress-specific check does not apply.";
    return [
      makeCheck("performance.emoji_script", "skip", message),
      makeCheck("performance.jquery_migrate", "skip", message),
    ];
  }
  const { page } = homepage;
  const checks = [];

  const emoji = emojiLoader(page, homepage.url);
  checks.push(
    emoji
      ? makeCheck(
          "performance.emoji_script",
          "warn",
          "The homepage runs WordPress's emoji detection script, which tests the browser's emoji support on every page view and may download wp-emoji-release.min.js.",
          [emoji],
        )
      : makeCheck("performance.emoji_script", "pass", "WordPress's emoji detection script is not on the homepage."),
  );

  const migrate = scriptsLike(page, homepage.url, JQUERY_MIGRATE, "jquery-migrate-js");
  const jquery = scriptsLike(page, homepage.url, JQUERY, "jquery-core-js");
  if (migrate.length > 0) {
    checks.push(
      makeCheck(
        "performance.jquery_migrate",
        "warn",
        "The homepage loads jQuery Migrate, a compatibility layer for code written for old jQuery versions.",
        migrate,
      ),
    );
  } else if (jquery.length > 0) {
    checks.push(
      makeCheck("performance.jquery_migrate", "pass", "The homepage loads jQuery without jQuery Migrate.", jquery),
    );
  } else {
    checks.push(makeCheck("performance.jquery_migrate", "skip", "The homepage does not load jQuery."));
  }
  return checks;
};
