/** Performance checks (ids `performance.*`). See ../catalogue.ts for the rules on ids. */
import type { CheckDefinition } from "../check-definition.ts";

export const PERFORMANCE_CHECKS = {
  "performance.html_compression": {
    category: "performance",
    severity: "medium",
    title: "HTML is compressed",
    failTitle: "HTML is not compressed",
    remediation:
      "Enable gzip or Brotli for text/html in the web server (nginx: gzip on; Apache: mod_deflate) or at your CDN.",
  },
  "performance.ttfb": {
    category: "performance",
    severity: "medium",
    title: "Server responds quickly (time to first byte)",
    failTitle: "Server responds slowly (time to first byte)",
    remediation:
      "Use a page cache (WP Rocket, W3 Total Cache, LiteSpeed Cache or your host's), keep PHP up to date with OPcache enabled, and look for slow plugins with Query Monitor.",
  },
  "performance.redirects": {
    category: "performance",
    severity: "low",
    title: "Homepage is reached without a chain of redirects",
    failTitle: "Homepage is reached through a chain of redirects",
    remediation:
      "Redirect every variant of the address to the final URL in one hop: set WordPress Address and Site Address (Settings → General) to the final https:// URL, make the web server or CDN send http:// and the other host (www or not) straight there, and link to the final URL everywhere.",
  },
  "performance.page_cache": {
    category: "performance",
    // Judges whether WordPress builds the page per request; a static or other site may not
    // need a page cache at all (performance.ttfb still measures the first byte).
    wordpressOnly: "check",
    severity: "medium",
    title: "Homepage is served from a page cache",
    failTitle: "Homepage is not served from a page cache",
    remediation:
      "Serve pages from a full-page cache so PHP and the database don't run for every visitor: a cache plugin (WP Rocket, W3 Total Cache, WP Super Cache, LiteSpeed Cache on LiteSpeed servers), your host's cache, or a CDN that caches HTML (Cloudflare APO, Varnish, nginx fastcgi_cache). If a cache is in place but answered MISS, check that the homepage is not excluded and that no cookie or query string bypasses it.",
  },
  "performance.html_size": {
    category: "performance",
    severity: "medium",
    title: "Homepage HTML is a reasonable size",
    failTitle: "Homepage HTML is too large",
    remediation:
      "Look for what is inlined in the page source: page-builder CSS, inline SVG, large menus, JSON printed by plugins (wp_localize_script, wp_add_inline_script). Show excerpts and fewer posts on the homepage (Settings → Reading), remove unused widgets, and move large inline styles and scripts into cacheable files.",
  },
  "performance.dom_size": {
    category: "performance",
    severity: "medium",
    title: "Homepage has a moderate number of HTML elements (DOM size)",
    failTitle: "Homepage has too many HTML elements (DOM size)",
    remediation:
      "Simplify the homepage markup: fewer nested page-builder sections and columns, fewer posts and widgets, no hidden duplicate mobile/desktop versions of the same content, mega menus built on demand. Block themes and core blocks usually produce far smaller pages than page builders.",
  },
  "performance.render_blocking_scripts": {
    category: "performance",
    severity: "medium",
    title: "No render-blocking scripts in <head>",
    failTitle: "Scripts in <head> block rendering",
    remediation:
      "Load scripts with defer or async or in the footer: since WordPress 6.3 pass ['strategy' => 'defer'] (or ['in_footer' => true]) as the last argument of wp_register_script()/wp_enqueue_script(); for plugins' scripts use a performance plugin's “defer JavaScript” option (WP Rocket, Autoptimize, LiteSpeed Cache, Perfmatters). Check the site afterwards: inline scripts that call jQuery at once need it loaded first.",
  },
  "performance.script_count": {
    category: "performance",
    severity: "medium",
    title: "Homepage loads a moderate number of scripts",
    failTitle: "Homepage loads too many scripts",
    remediation:
      "Each plugin may enqueue its own JavaScript on every page. Deactivate plugins you don't use, unload scripts where they aren't needed (Asset CleanUp, Perfmatters, or wp_dequeue_script() in a wp_enqueue_scripts hook with a condition such as is_front_page()), and prefer themes and blocks that need little JavaScript.",
  },
  "performance.stylesheet_count": {
    category: "performance",
    severity: "low",
    title: "Homepage loads a moderate number of stylesheets",
    failTitle: "Homepage loads too many stylesheets",
    remediation:
      "Unload plugin stylesheets where they aren't needed (Asset CleanUp, Perfmatters, or wp_dequeue_style() in a wp_enqueue_scripts hook), load only the core block styles a page uses (add_filter('should_load_separate_core_block_assets', '__return_true')), and on HTTP/1.1 servers combine files (Autoptimize, WP Rocket, LiteSpeed Cache).",
  },
  "performance.third_party_hosts": {
    category: "performance",
    severity: "low",
    title: "Homepage loads resources from few third-party hosts",
    failTitle: "Homepage loads resources from many third-party hosts",
    remediation:
      "Each extra host costs a DNS lookup and a new connection. Remove embeds, trackers and widgets you don't need; self-host web fonts (the theme's local-fonts option or a plugin such as OMGF) and libraries instead of loading them from public CDNs; load video and chat embeds on click (facades such as WP YouTube Lyte); add <link rel=\"preconnect\"> for the one or two hosts that remain critical.",
  },
  "performance.asset_compression": {
    category: "performance",
    severity: "medium",
    title: "Scripts, stylesheets and SVG images are compressed",
    failTitle: "Scripts, stylesheets or SVG images are not compressed",
    remediation:
      "Enable gzip or Brotli for text assets in the web server (nginx: gzip on; gzip_types text/css application/javascript image/svg+xml; Apache: AddOutputFilterByType DEFLATE text/css application/javascript image/svg+xml) or at your CDN. Cache plugins (W3 Total Cache, WP Rocket) can write these rules into .htaccess.",
  },
  "performance.asset_caching": {
    category: "performance",
    severity: "medium",
    title: "Static assets may be cached by browsers for at least 30 days",
    failTitle: "Static assets may not be cached by browsers for 30 days",
    remediation:
      'Send a long Cache-Control on static files; WordPress adds ?ver= to enqueued assets, so a year is safe. nginx: location ~* \\.(css|js|png|jpe?g|gif|webp|avif|svg|woff2?)$ { expires 1y; }; Apache: mod_expires (ExpiresByType text/css "access plus 1 year"). Cache plugins (W3 Total Cache\'s Browser Cache, WP Rocket) can write these rules for you.',
  },
  "performance.large_assets": {
    category: "performance",
    severity: "medium",
    title: "No oversized scripts, stylesheets, images or fonts",
    failTitle: "Oversized scripts, stylesheets, images or fonts",
    remediation:
      "Resize and compress images before upload or with an image plugin (ShortPixel, Imagify, EWWW Image Optimizer), serve WebP or AVIF, and let WordPress's srcset choose the size; unload or split large scripts and stylesheets; subset web fonts and serve them as WOFF2.",
  },
  "performance.image_lazy_loading": {
    category: "performance",
    severity: "low",
    title: "Images below the fold are lazy-loaded",
    failTitle: "Images below the fold are not lazy-loaded",
    remediation:
      "WordPress 5.5+ adds loading=\"lazy\" to content images by itself: check that no plugin or theme turns it off (add_filter('wp_lazy_loading_enabled', '__return_false')) and that theme templates print images with wp_get_attachment_image(). Keep the first, above-the-fold image eager: lazy-loading it delays the Largest Contentful Paint.",
  },
  "performance.image_dimensions": {
    category: "performance",
    severity: "medium",
    title: "Images have width and height attributes",
    failTitle: "Images lack width and height attributes",
    remediation:
      "Give every <img> width and height attributes so the browser reserves its space and the layout doesn't shift while images load (Cumulative Layout Shift). WordPress 5.5+ adds them to images from the Media Library; fix theme templates and page-builder widgets that print bare <img> tags, e.g. by using wp_get_attachment_image().",
  },
  "performance.emoji_script": {
    category: "performance",
    wordpressOnly: "check",
    severity: "low",
    title: "WordPress emoji script is not loaded",
    failTitle: "WordPress emoji script is loaded",
    remediation:
      "Current systems draw emoji themselves. Remove WordPress's emoji detection script and styles: remove_action('wp_head', 'print_emoji_detection_script', 7); remove_action('wp_print_styles', 'print_emoji_styles'); (WordPress 6.4+: remove_action('wp_enqueue_scripts', 'wp_enqueue_emoji_styles');), or use the “disable emojis” option of a performance plugin (Perfmatters, WP Rocket, Disable Emojis).",
  },
  "performance.jquery_migrate": {
    category: "performance",
    wordpressOnly: "check",
    severity: "low",
    title: "jQuery Migrate is not loaded on the front end",
    failTitle: "jQuery Migrate is loaded on the front end",
    remediation:
      "jQuery Migrate only helps code written for old jQuery versions; WordPress loads it as a dependency of jquery. Once the browser console shows no JQMIGRATE warnings for your theme and plugins, drop it on the front end: add_action('wp_default_scripts', function ($scripts) { if (!is_admin() && isset($scripts->registered['jquery'])) { $scripts->registered['jquery']->deps = array_diff($scripts->registered['jquery']->deps, ['jquery-migrate']); } }); or use a performance plugin's option (Perfmatters).",
  },
  "performance.lcp": {
    category: "performance",
    severity: "medium",
    title: "The main content paints quickly (Largest Contentful Paint, lab)",
    failTitle: "The main content paints slowly (Largest Contentful Paint, lab)",
    remediation:
      'Make the largest element of the first screen arrive early: serve the page from a cache, preload the hero image (or add fetchpriority="high" to it) and never lazy-load it, serve it in a modern format at the size it is shown, and remove or defer the render-blocking files the lab names. The lab run names the element and what delayed it.',
  },
  "performance.cls": {
    category: "performance",
    severity: "medium",
    title: "The layout stays stable while the page loads (Cumulative Layout Shift, lab)",
    failTitle: "The layout shifts while the page loads (Cumulative Layout Shift, lab)",
    remediation:
      "Reserve space for everything that arrives late: width and height on images and iframes (or a CSS aspect-ratio), fixed space for ads, embeds and cookie banners, no content inserted above what is already shown, and font-display: optional or size-adjusted fallback fonts. The lab run names the elements that moved.",
  },
  "performance.tbt": {
    category: "performance",
    severity: "medium",
    title: "The main thread is rarely blocked (Total Blocking Time, lab)",
    failTitle: "Long scripts block the main thread (Total Blocking Time, lab)",
    remediation:
      "Run less JavaScript while the page loads: remove or replace the plugins whose scripts the lab run names, load their scripts only on the pages that use them (Asset CleanUp, Perfmatters), defer or delay what is not needed for the first screen, and load third-party tags after interaction.",
  },
  "performance.lab_render_blocking": {
    category: "performance",
    severity: "low",
    title: "No file holds up the first render (lab)",
    failTitle: "Files hold up the first render (lab)",
    remediation:
      "Load scripts with defer or async (or as modules), inline the CSS the first screen needs and load the rest without blocking (media or preload), and drop files that the page does not use. The lab run names each blocking file and the plugin or theme it belongs to.",
  },
  "performance.lab_image_dimensions": {
    category: "performance",
    severity: "low",
    title: "Images have dimensions in the rendered page (lab)",
    failTitle: "Images have no dimensions in the rendered page (lab)",
    remediation:
      "Give every <img> width and height attributes (WordPress adds them to images from the media library; themes and page builders may drop them) or a CSS aspect-ratio, so the browser reserves their space before they load.",
  },
} as const satisfies Record<string, CheckDefinition>;
