/** SEO checks (ids `seo.*`). See ../catalogue.ts for the rules on ids. */
import type { CheckDefinition } from "../check-definition.ts";

export const SEO_CHECKS = {
  "seo.noindex": {
    category: "seo",
    severity: "high",
    title: "Homepage may be indexed by search engines",
    failTitle: "Homepage is kept out of search engines (noindex)",
    remediation:
      "Remove noindex from the homepage: untick “Discourage search engines from indexing this site” in Settings → Reading, check the homepage's robots setting in your SEO plugin, and make sure neither the server nor a plugin sends an X-Robots-Tag: noindex header. Keep noindex on staging sites only.",
  },
  "seo.canonical": {
    category: "seo",
    severity: "low",
    title: "Homepage declares a canonical URL",
    failTitle: "Homepage declares no canonical URL",
    remediation:
      'WordPress core prints <link rel="canonical"> only on single posts and pages, not on the blog homepage. An SEO plugin (Yoast SEO, Rank Math, All in One SEO, The SEO Framework) adds it everywhere, so copies of the homepage with tracking parameters (?utm_source=…, ?fbclid=…) are consolidated into one URL.',
  },
  "seo.canonical_target": {
    category: "seo",
    severity: "high",
    title: "Homepage's canonical URL points to the homepage itself",
    failTitle: "Homepage's canonical URL points to another page",
    remediation:
      "The canonical must be this page's own final URL (same scheme, host and path). A canonical to another site — typically an old or staging domain left after a migration — or to another page asks search engines to drop the homepage from results: set WordPress Address and Site Address (Settings → General), replace the old domain in the database (wp search-replace), and keep one canonical tag only (a theme and an SEO plugin both printing one conflict).",
  },
  "seo.robots_txt": {
    category: "seo",
    severity: "low",
    title: "robots.txt is served",
    failTitle: "robots.txt is not served",
    remediation:
      "Let WordPress serve its virtual robots.txt — the web server must pass /robots.txt to index.php when no such file exists (nginx: try_files $uri $uri/ /index.php?$args;) — or upload a plain-text robots.txt to the site root. A robots.txt that answers with a server error stops Google crawling the site.",
  },
  "seo.robots_txt_blocks_all": {
    category: "seo",
    severity: "critical",
    title: "robots.txt lets search engines crawl the site",
    failTitle: "robots.txt blocks search engines from the whole site",
    remediation:
      "Remove “Disallow: /” from the “User-agent: *” and Googlebot groups of robots.txt: check Settings → Reading (“Discourage search engines…”), your SEO plugin's robots.txt editor, and any physical robots.txt in the site root, which overrides WordPress's virtual one. If robots.txt answers 5xx or 429, fix that error: Google then treats the whole site as disallowed.",
  },
  "seo.sitemap": {
    category: "seo",
    severity: "medium",
    title: "An XML sitemap is available",
    failTitle: "No XML sitemap is available",
    remediation:
      "WordPress 5.5+ serves /wp-sitemap.xml unless it is turned off (add_filter('wp_sitemaps_enabled', '__return_false')) or the site discourages search engines; SEO plugins (Yoast SEO, Rank Math) serve /sitemap_index.xml instead. Make sure the sitemap answers 200 with XML that lists your content, name it in robots.txt and submit it in Google Search Console.",
  },
  "seo.sitemap_in_robots": {
    category: "seo",
    severity: "low",
    title: "robots.txt names a working sitemap",
    failTitle: "robots.txt names no working sitemap",
    remediation:
      "Add “Sitemap: https://example.com/wp-sitemap.xml” (or your SEO plugin's sitemap_index.xml) to robots.txt. WordPress and SEO plugins add it to the virtual robots.txt by themselves; a physical robots.txt file needs it by hand, and must be updated when you switch SEO plugins, or it names a sitemap that no longer exists.",
  },
  "seo.title": {
    category: "seo",
    severity: "high",
    title: "Homepage has a title",
    failTitle: "Homepage has no title",
    remediation:
      "Let WordPress print the <title>: the theme should declare add_theme_support('title-tag') instead of a missing or hard-coded title. Set the Site Title and Tagline in Settings → General, or the homepage title in your SEO plugin.",
  },
  "seo.title_length": {
    category: "seo",
    severity: "low",
    title: "Homepage title is 10–60 characters long",
    failTitle: "Homepage title is shorter than 10 or longer than 60 characters",
    remediation:
      "Search results show about 50–60 characters of a title. Put the brand and the main topic first and keep it short: set the homepage title in your SEO plugin, or shorten the Site Title and Tagline (Settings → General).",
  },
  "seo.meta_description": {
    category: "seo",
    severity: "medium",
    title: "Homepage has a meta description",
    failTitle: "Homepage has no meta description",
    remediation:
      "WordPress core prints no meta description. Write one for the homepage in an SEO plugin (Yoast SEO, Rank Math, All in One SEO, The SEO Framework); search engines often show it as the snippet under the title.",
  },
  "seo.meta_description_length": {
    category: "seo",
    severity: "low",
    title: "Homepage meta description is 50–160 characters long",
    failTitle: "Homepage meta description is shorter than 50 or longer than 160 characters",
    remediation:
      "Google shows up to about 155–160 characters of a description, and one much shorter than 50 rarely describes the page. Rewrite it in your SEO plugin's homepage settings.",
  },
  "seo.h1": {
    category: "seo",
    severity: "low",
    title: "Homepage has exactly one H1 heading",
    failTitle: "Homepage does not have exactly one H1 heading",
    remediation:
      "Give the homepage one <h1> that names the site or its main topic. Many themes print the site title as the homepage's <h1>; page builders and widgets sometimes add more — turn extra ones into <h2> in the editor. If the H1 is a logo image, give the image alt text.",
  },
  "seo.lang": {
    category: "seo",
    severity: "low",
    title: "Page declares a valid language (<html lang>)",
    failTitle: "Page declares no valid language (<html lang>)",
    remediation:
      "Themes print the lang attribute with language_attributes() (<html <?php language_attributes(); ?>> in header.php); its value comes from Settings → General → Site Language. It must be a BCP 47 tag such as en-US, not en_US.",
  },
  "seo.viewport": {
    category: "seo",
    severity: "medium",
    title: 'Page has a mobile viewport (<meta name="viewport">)',
    failTitle: 'Page has no mobile viewport (<meta name="viewport">)',
    remediation:
      'Add <meta name="viewport" content="width=device-width, initial-scale=1"> to the theme\'s <head> (header.php, or from a wp_head hook). Every current WordPress theme has it; without it phones render the page as a shrunken desktop page, and Google indexes the mobile version.',
  },
  "seo.image_alt": {
    category: "seo",
    severity: "low",
    title: "Images have alt text",
    failTitle: "Images lack alt text",
    remediation:
      'Fill in the Alternative Text of images in the Media Library or the image block, and give purely decorative images an empty alt="". Theme templates should print images with wp_get_attachment_image(), which adds the stored alt text.',
  },
  "seo.open_graph": {
    category: "seo",
    severity: "low",
    title: "Homepage has Open Graph tags (og:title, og:type, og:image, og:url)",
    failTitle: "Homepage lacks Open Graph tags (og:title, og:type, og:image, og:url)",
    remediation:
      "Open Graph tags set the title, image and description shown when the page is shared on Facebook, LinkedIn, Slack and messengers. SEO plugins (Yoast SEO, Rank Math, All in One SEO) and Jetpack generate them; set a default sharing image in the plugin's social settings.",
  },
  "seo.twitter_card": {
    category: "seo",
    severity: "info",
    title: "Homepage declares an X (Twitter) card type",
    failTitle: "Homepage declares no X (Twitter) card type",
    remediation:
      'Add <meta name="twitter:card" content="summary_large_image">; X takes the title, description and image from the Open Graph tags when twitter:* ones are missing. SEO plugins (Yoast SEO, Rank Math) add it with their social settings.',
  },
  "seo.structured_data": {
    category: "seo",
    severity: "low",
    title: "Homepage has valid structured data (schema.org)",
    failTitle: "Homepage structured data (schema.org) is missing or invalid",
    remediation:
      "Describe the site with schema.org JSON-LD (WebSite plus Organization or Person); SEO plugins (Yoast SEO, Rank Math, All in One SEO) output it by themselves. Fix JSON-LD blocks that don't parse — search engines ignore them; test with Google's Rich Results Test or validator.schema.org.",
  },
  "seo.hreflang": {
    category: "seo",
    severity: "medium",
    title: "hreflang annotations are valid",
    failTitle: "hreflang annotations are invalid",
    remediation:
      "Use ISO 639-1 language codes with an optional ISO 3166-1 region (en, en-GB, pt-BR — not en-UK or en_US), absolute URLs, and list the page itself among its alternates. Multilingual plugins (WPML, Polylang, TranslatePress) generate these tags: fix the language settings there rather than the tags.",
  },
  "seo.seo_plugin": {
    category: "seo",
    wordpressOnly: "check",
    severity: "info",
    title: "An SEO plugin manages titles, descriptions and sitemaps",
    failTitle: "No SEO plugin manages titles, descriptions and sitemaps",
    remediation:
      "WordPress core prints a title and a basic sitemap but no meta description, social tags or structured data. An SEO plugin (Yoast SEO, Rank Math, All in One SEO, The SEO Framework, SEOPress) adds them and lets you set them per page.",
  },
} as const satisfies Record<string, CheckDefinition>;
