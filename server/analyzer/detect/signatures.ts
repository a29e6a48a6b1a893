/**
 * Plugin signatures as data: slug → how the plugin shows itself on a site besides its own
 * asset URLs (which are recognised for every plugin, listed here or not).
 *
 * Patterns are regular-expression sources, matched case-insensitively. Where a pattern has
 * a named group `version`, a match also states the plugin's version. Keep entries to
 * signals the plugin itself emits (comments, generator tags, headers, REST namespaces,
 * body classes, cookies, globals in inline scripts); a signal shared by several plugins
 * does not belong here. Slugs are the WordPress.org plugin directory names.
 */

export interface PluginSignature {
  name: string;
  /**
   * Other display names the plugin is credited under in comments, generator tags and
   * headers (finders/names.ts). Only names that belong to this plugin alone.
   */
  aliases?: string[];
  category:
    | "seo"
    | "cache"
    | "security"
    | "forms"
    | "ecommerce"
    | "builder"
    | "analytics"
    | "performance"
    | "multilingual"
    | "community"
    | "spam"
    | "backup"
    | "other";
  /** Text inside HTML comments. */
  comments?: string[];
  /** <meta name="generator"> content. */
  generator?: string[];
  /**
   * Response header name (lower case) → pattern for its value ("" = present): headers only
   * this plugin sends. Headers that credit it by name (X-Powered-By: Name/1.2) need no
   * entry: finders/credits.ts reads them through the names.
   */
  headers?: Record<string, string>;
  /** REST API namespaces the plugin registers. */
  restNamespaces?: string[];
  /** Classes on <body>. */
  bodyClass?: string[];
  /** Anywhere in the HTML (ids, classes, inline settings objects). Use sparingly. */
  html?: string[];
  /** Cookie names set on the homepage. */
  cookies?: string[];
  /**
   * Identifiers the plugin's code uses that are not spelt like its slug (`wpcf7` for
   * contact-form-7): a `_wpcf7_version` field or a `wpcf7` object then names it even when an
   * optimiser has merged its scripts (finders/resolve.ts).
   */
  identifiers?: string[];
}

export const PLUGIN_SIGNATURES: Record<string, PluginSignature> = {
  "wordpress-seo": {
    name: "Yoast SEO",
    category: "seo",
    aliases: ["Yoast WordPress SEO"],
    comments: [
      "This site is optimized with the Yoast SEO(?: Premium)? plugin v(?<version>[\\d.]+)",
      "/ Yoast SEO(?: Premium)? plugin",
    ],
    restNamespaces: ["yoast/v1"],
    html: ['class="yoast-schema-graph'],
    identifiers: ["wpseo", "yoast"],
  },
  "seo-by-rank-math": {
    name: "Rank Math SEO",
    category: "seo",
    comments: [
      "Search Engine Optimization by Rank Math(?: PRO)? - https://rankmath\\.com/",
      "/Rank Math WordPress SEO plugin",
    ],
    restNamespaces: ["rankmath/v1"],
    html: ['class="rank-math-schema'],
    identifiers: ["rank_math", "rankMath"],
  },
  "all-in-one-seo-pack": {
    name: "All in One SEO",
    category: "seo",
    aliases: ["All in One SEO Pack", "AIOSEO"],
    comments: ["All in One SEO(?: Pro)? (?<version>[\\d.]+) - aioseo\\.com", "All in One SEO Pack (?<version>[\\d.]+)"],
    restNamespaces: ["aioseo/v1"],
    generator: ["All in One SEO(?: Pro)? \\(AIOSEO\\) (?<version>[\\d.]+)"],
    identifiers: ["aioseo"],
  },
  autodescription: {
    name: "The SEO Framework",
    category: "seo",
    comments: ["The SEO Framework by Sybre Waaijer"],
  },
  woocommerce: {
    name: "WooCommerce",
    category: "ecommerce",
    generator: ["^WooCommerce (?<version>[\\d.]+)"],
    restNamespaces: ["wc/v3", "wc/store", "wc/store/v1"],
    bodyClass: ["\\bwoocommerce(?:-page|-no-js)?\\b"],
    cookies: ["^woocommerce_", "^wp_woocommerce_session_"],
  },
  elementor: {
    name: "Elementor",
    category: "builder",
    generator: ["^Elementor (?<version>[\\d.]+)"],
    restNamespaces: ["elementor/v1"],
    bodyClass: ["\\belementor-default\\b", "\\belementor-page\\b", "\\belementor-kit-\\d+"],
  },
  "elementor-pro": {
    name: "Elementor Pro",
    category: "builder",
    restNamespaces: ["elementor-pro/v1"],
  },
  js_composer: {
    name: "WPBakery Page Builder",
    category: "builder",
    aliases: ["WPBakery", "Visual Composer"],
    generator: ["Powered by WPBakery Page Builder"],
    bodyClass: ["\\bwpb-js-composer\\b"],
    identifiers: ["wpb"],
  },
  revslider: {
    name: "Slider Revolution",
    category: "builder",
    aliases: ["Revolution Slider"],
    generator: ["Powered by Slider Revolution (?<version>[\\d.]+)"],
  },
  "contact-form-7": {
    name: "Contact Form 7",
    category: "forms",
    restNamespaces: ["contact-form-7/v1"],
    html: ["\\bwpcf7\\b"],
    identifiers: ["wpcf7"],
  },
  "wpforms-lite": {
    name: "WPForms",
    category: "forms",
    restNamespaces: ["wpforms/v1"],
    html: ["\\bwpforms-container\\b"],
    identifiers: ["wpforms"],
  },
  gravityforms: {
    name: "Gravity Forms",
    category: "forms",
    restNamespaces: ["gf/v2"],
    html: ["\\bgform_wrapper\\b"],
    identifiers: ["gform"],
  },
  jetpack: {
    name: "Jetpack",
    category: "other",
    restNamespaces: ["jetpack/v4"],
  },
  akismet: {
    name: "Akismet Anti-spam",
    category: "spam",
    aliases: ["Akismet", "Akismet Anti-Spam: Spam Protection"],
    restNamespaces: ["akismet/v1"],
  },
  wordfence: {
    name: "Wordfence Security",
    category: "security",
    restNamespaces: ["wordfence/v1"],
    cookies: ["^wfwaf-authcookie-", "^wfvt_"],
  },
  "better-wp-security": {
    name: "Solid Security (iThemes Security)",
    category: "security",
    aliases: ["Solid Security", "iThemes Security"],
    restNamespaces: ["ithemes-security/v1"],
  },
  "really-simple-ssl": {
    name: "Really Simple SSL",
    category: "security",
    restNamespaces: ["reallysimplessl/v1"],
  },
  "wp-rocket": {
    name: "WP Rocket",
    category: "cache",
    comments: ["This website is like a Rocket, isn't it\\?", "Performance optimized by WP Rocket"],
    headers: { "x-rocket-nginx-bypass": "" },
  },
  "w3-total-cache": {
    name: "W3 Total Cache",
    category: "cache",
    comments: ["Performance optimized by W3 Total Cache"],
    headers: { "x-powered-by": "W3 Total Cache(?:/(?<version>[\\d.]+))?" },
  },
  "litespeed-cache": {
    name: "LiteSpeed Cache",
    category: "cache",
    comments: [
      "Page (?:optimized|generated) by LiteSpeed Cache(?: (?<version>[\\d.]+))?",
      "Page cached by LiteSpeed Cache (?<version>[\\d.]+) on ",
    ],
    headers: { "x-litespeed-cache": "" },
  },
  "wp-super-cache": {
    name: "WP Super Cache",
    category: "cache",
    aliases: ["WP-Super-Cache"],
    comments: ["(?:Cached page|Dynamic page) generated by WP-Super-Cache"],
    // Sent when the PHP side serves a cached page: "Served supercache file from PHP", "Served legacy cache file".
    headers: { "wp-super-cache": "" },
  },
  "wp-fastest-cache": {
    name: "WP Fastest Cache",
    category: "cache",
    comments: ["WP Fastest Cache file was created"],
  },
  autoptimize: {
    name: "Autoptimize",
    category: "performance",
    html: ["/cache/autoptimize/"],
  },
  "google-site-kit": {
    name: "Site Kit by Google",
    category: "analytics",
    aliases: ["Site Kit"],
    generator: ["^Site Kit by Google (?<version>[\\d.]+)"],
    restNamespaces: ["google-site-kit/v1"],
  },
  "google-analytics-for-wordpress": {
    name: "MonsterInsights",
    category: "analytics",
    comments: ["This site uses the Google Analytics by MonsterInsights plugin v(?<version>[\\d.]+)"],
    identifiers: ["monsterinsights"],
  },
  "sitepress-multilingual-cms": {
    name: "WPML",
    category: "multilingual",
    aliases: ["WPML Multilingual CMS"],
    generator: ["^WPML ver:(?<version>[\\d.]+)"],
    identifiers: ["wpml"],
  },
  polylang: {
    name: "Polylang",
    category: "multilingual",
    restNamespaces: ["pll/v1"],
  },
  redirection: {
    name: "Redirection",
    category: "seo",
    restNamespaces: ["redirection/v1"],
  },
  buddypress: {
    name: "BuddyPress",
    category: "community",
    restNamespaces: ["buddypress/v1"],
    bodyClass: ["\\bbuddypress\\b"],
  },
  bbpress: {
    name: "bbPress",
    category: "community",
    bodyClass: ["\\bbbpress\\b"],
  },
  "the-events-calendar": {
    name: "The Events Calendar",
    category: "other",
    restNamespaces: ["tribe/events/v1"],
  },
  "wp-smushit": {
    name: "Smush",
    category: "performance",
    html: ["\\bsmush-lazy"],
  },
  updraftplus: {
    name: "UpdraftPlus",
    category: "backup",
    restNamespaces: ["updraftplus/v1"],
  },
  "xrds-simple": {
    name: "XRDS-Simple",
    category: "other",
    headers: { "x-xrds-location": "", "x-yadis-location": "" },
  },
  "classic-editor": {
    name: "Classic Editor",
    category: "other",
  },
  duplicator: {
    name: "Duplicator",
    category: "backup",
  },
  "wp-hummingbird": {
    name: "Hummingbird",
    category: "cache",
    // Sent with every page its page cache serves.
    headers: { "hummingbird-cache": "" },
  },
  "cache-enabler": {
    name: "Cache Enabler",
    category: "cache",
    comments: ["Cache Enabler by KeyCDN"],
    // Sent by its advanced-cache.php drop-in when it delivers a cached page.
    headers: { "x-cache-handler": "^cache-enabler-engine$" },
  },
  "wp-optimize": {
    name: "WP-Optimize",
    category: "performance",
    comments: ["Cached by WP-Optimize\\b"],
  },
};
