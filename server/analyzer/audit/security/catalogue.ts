/** Security checks (ids `security.*`). See ../catalogue.ts for the rules on ids. */
import type { CheckDefinition } from "../check-definition.ts";

/** The remediation shared by every "file must not be public" check, after its own first sentence. */
const BLOCK_FILES =
  'Then block such files at the web server — nginx: location ~ /\\.(?!well-known) { deny all; } and location ~* (\\.(bak|old|orig|save|swp|sql|log)|~)$ { deny all; }; Apache: <FilesMatch "(\\.(bak|old|orig|save|swp|sql|log)|~)$"> Require all denied </FilesMatch>.';

export const SECURITY_CHECKS = {
  // Transport
  "security.https": {
    category: "security",
    severity: "high",
    title: "Site is served over HTTPS",
    failTitle: "Site is not served over HTTPS",
    remediation:
      "Install a TLS certificate (Let's Encrypt is free), serve the site over https:// and redirect every http:// request to it. In WordPress, set the Site Address and WordPress Address to https://.",
  },
  "security.http_to_https_redirect": {
    category: "security",
    severity: "medium",
    title: "http:// requests are redirected to https://",
    failTitle: "http:// requests are not redirected to https://",
    remediation:
      'Redirect all plain-HTTP requests permanently to HTTPS. nginx: server { listen 80; server_name example.com; return 301 https://$host$request_uri; }. Apache: RewriteEngine On, RewriteCond %{HTTPS} off, RewriteRule ^ https://%{HTTP_HOST}%{REQUEST_URI} [L,R=301]. Many hosts offer a "Force HTTPS" switch.',
  },
  "security.hsts": {
    category: "security",
    severity: "medium",
    title: "HTTPS is enforced with Strict-Transport-Security (max-age of at least 180 days)",
    failTitle: "HTTPS is not enforced with Strict-Transport-Security (max-age of at least 180 days)",
    remediation:
      'Send Strict-Transport-Security on HTTPS responses. nginx: add_header Strict-Transport-Security "max-age=31536000; includeSubDomains" always; Apache: Header always set Strict-Transport-Security "max-age=31536000; includeSubDomains". Start with a short max-age if you are unsure every subdomain has HTTPS.',
  },
  "security.mixed_content": {
    category: "security",
    severity: "medium",
    title: "The HTTPS homepage loads no resources over plain HTTP",
    failTitle: "The HTTPS homepage loads resources over plain HTTP",
    remediation:
      "Change the http:// URLs of scripts, styles, images and frames to https:// (or relative URLs). For old content, replace the URLs in the database (WP-CLI: wp search-replace 'http://example.com' 'https://example.com'), or send Content-Security-Policy: upgrade-insecure-requests.",
  },
  "security.login_over_https": {
    category: "security",
    wordpressOnly: "check",
    severity: "high",
    title: "The login page is served over HTTPS",
    failTitle: "The login page is not served over HTTPS",
    remediation:
      "Serve wp-login.php over HTTPS only: install a certificate, redirect http:// to https://, and set define('FORCE_SSL_ADMIN', true); in wp-config.php so logins and admin sessions never travel in clear text.",
  },

  // Response headers
  "security.csp": {
    category: "security",
    severity: "low",
    title: "A Content-Security-Policy restricts where scripts may come from",
    failTitle: "No Content-Security-Policy restricts where scripts may come from",
    remediation:
      "Send a Content-Security-Policy header with default-src or script-src listing the sources your site uses, e.g. Content-Security-Policy: default-src 'self'; script-src 'self' 'nonce-…'; object-src 'none'; base-uri 'self'. Start with Content-Security-Policy-Report-Only to find what breaks. Plugins such as \"Headers Security Advanced & HSTS WP\" can add it.",
  },
  "security.clickjacking": {
    category: "security",
    severity: "low",
    title: "Pages cannot be framed by other sites (X-Frame-Options or CSP frame-ancestors)",
    failTitle: "Pages can be framed by other sites (no X-Frame-Options or CSP frame-ancestors)",
    remediation:
      "Send X-Frame-Options: SAMEORIGIN (nginx: add_header X-Frame-Options SAMEORIGIN always; Apache: Header always set X-Frame-Options SAMEORIGIN) or Content-Security-Policy: frame-ancestors 'self'.",
  },
  "security.x_content_type_options": {
    category: "security",
    severity: "low",
    title: "X-Content-Type-Options: nosniff is set",
    failTitle: "X-Content-Type-Options: nosniff is not set",
    remediation:
      "Send X-Content-Type-Options: nosniff. nginx: add_header X-Content-Type-Options nosniff always; Apache: Header always set X-Content-Type-Options nosniff.",
  },
  "security.referrer_policy": {
    category: "security",
    severity: "low",
    title: "A Referrer-Policy limits what other sites learn about visitors' URLs",
    failTitle: "No Referrer-Policy limits what other sites learn about visitors' URLs",
    remediation:
      'Send Referrer-Policy: strict-origin-when-cross-origin (or stricter). nginx: add_header Referrer-Policy "strict-origin-when-cross-origin" always; Apache: Header always set Referrer-Policy "strict-origin-when-cross-origin".',
  },
  "security.permissions_policy": {
    category: "security",
    severity: "info",
    title: "A Permissions-Policy restricts powerful browser features",
    failTitle: "No Permissions-Policy restricts powerful browser features",
    remediation:
      'Send a Permissions-Policy that turns off features the site does not use, e.g. nginx: add_header Permissions-Policy "camera=(), microphone=(), geolocation=()" always;',
  },
  "security.cookie_flags": {
    category: "security",
    severity: "medium",
    title: "Cookies set by the homepage carry the Secure flag (on HTTPS) and session cookies are HttpOnly",
    failTitle: "Cookies set by the homepage lack the Secure flag (on HTTPS) or session cookies lack HttpOnly",
    remediation:
      "Set cookies with Secure (on HTTPS sites) and HttpOnly (session cookies), and SameSite=Lax. In PHP: session.cookie_secure=1, session.cookie_httponly=1, session.cookie_samesite=Lax; for a plugin's cookies, update or configure that plugin.",
  },

  // Disclosure
  "security.wp_version_disclosed": {
    category: "security",
    wordpressOnly: "check",
    severity: "low",
    title: "WordPress version is not disclosed",
    failTitle: "WordPress version is disclosed",
    remediation:
      "Remove the generator tag (remove_action('wp_head', 'wp_generator')) and the version from feeds (add_filter('the_generator', '__return_empty_string')). Hiding the version is no substitute for updating, but it stops drive-by scanners from picking you.",
  },
  "security.server_version_disclosed": {
    category: "security",
    severity: "low",
    title: "The Server header does not disclose the web server's version",
    failTitle: "The Server header discloses the web server's version",
    remediation:
      "Hide the version: nginx: server_tokens off; Apache: ServerTokens Prod and ServerSignature Off; LiteSpeed: Server Signature → Hide Version.",
  },
  "security.php_version_disclosed": {
    category: "security",
    severity: "low",
    title: "The PHP version is not disclosed (X-Powered-By)",
    failTitle: "The PHP version is disclosed (X-Powered-By)",
    remediation:
      "Set expose_php = Off in php.ini (or in the host's PHP settings); with nginx you can also add fastcgi_hide_header X-Powered-By;",
  },
  "security.readme_exposed": {
    category: "security",
    wordpressOnly: "files",
    severity: "info",
    title: "WordPress's readme.html is not public",
    failTitle: "WordPress's readme.html is public",
    remediation:
      "Delete readme.html from WordPress's core directory (the root, or /wp/ when WordPress has its own directory; it comes back with core updates), or block it: nginx: location ~ /readme\\.html$ { deny all; }; Apache: <Files readme.html> Require all denied </Files>.",
  },

  // XML-RPC
  "security.xmlrpc_enabled": {
    category: "security",
    wordpressOnly: "check",
    severity: "low",
    title: "XML-RPC (xmlrpc.php) is disabled",
    failTitle: "XML-RPC (xmlrpc.php) is enabled",
    remediation:
      'If nothing needs XML-RPC (Jetpack and the old mobile apps do; the REST API replaced it), block it: nginx: location = /xmlrpc.php { deny all; }; Apache: <Files xmlrpc.php> Require all denied </Files>; or a security plugin\'s "disable XML-RPC" option.',
  },
  "security.xmlrpc_multicall": {
    category: "security",
    wordpressOnly: "check",
    severity: "medium",
    title: "XML-RPC does not offer system.multicall (many password guesses per request)",
    failTitle: "XML-RPC offers system.multicall (many password guesses per request)",
    remediation:
      "Block xmlrpc.php (see security.xmlrpc_enabled), or remove the method: add_filter('xmlrpc_methods', function ($m) { unset($m['system.multicall']); return $m; }); Security plugins (Wordfence, Solid Security) can also limit XML-RPC logins.",
  },
  "security.xmlrpc_pingback": {
    category: "security",
    wordpressOnly: "check",
    severity: "low",
    title: "XML-RPC does not offer pingback.ping (DDoS reflection, internal port scans)",
    failTitle: "XML-RPC offers pingback.ping (DDoS reflection, internal port scans)",
    remediation:
      "Block xmlrpc.php, or remove the pingback methods: add_filter('xmlrpc_methods', function ($m) { unset($m['pingback.ping'], $m['pingback.extensions.getPingbacks']); return $m; }); and turn off pingbacks in Settings → Discussion.",
  },

  // Users
  "security.user_enumeration": {
    category: "security",
    wordpressOnly: "check",
    severity: "low",
    title: "Visitors cannot list the site's login names",
    failTitle: "Visitors can list the site's login names",
    remediation:
      "Close every route that lists accounts, not just one: restrict the REST users endpoint to logged-in users, block ?author=N, drop users from the core sitemap (add_filter('wp_sitemaps_add_provider', fn ($p, $name) => $name === 'users' ? false : $p, 10, 2);), and keep display names (shown in feeds and oEmbed) different from login names. A security plugin's \"disable user enumeration\" option covers most of these.",
  },
  "security.rest_user_enumeration": {
    category: "security",
    wordpressOnly: "check",
    severity: "low",
    title: "The REST API does not list user accounts to visitors",
    failTitle: "The REST API lists user accounts to visitors",
    remediation:
      "Restrict /wp-json/wp/v2/users to logged-in users: add_filter('rest_endpoints', …) to unset the users routes for anonymous requests, or a security plugin's \"disable user enumeration\" option. Keep display names different from login names.",
  },
  "security.author_enumeration": {
    category: "security",
    wordpressOnly: "check",
    severity: "low",
    title: "/?author=N does not reveal login names",
    failTitle: "/?author=N reveals login names",
    remediation:
      'Stop ?author=N from redirecting to /author/<login>/: a security plugin\'s "block user enumeration" option, or nginx: if ($args ~ "^author=\\d") { return 403; }. Setting a nickname different from the login changes the author URL slug only with a plugin, so blocking is the reliable fix.',
  },
  "security.admin_username": {
    category: "security",
    wordpressOnly: "check",
    severity: "medium",
    title: 'No disclosed account uses the login name "admin"',
    failTitle: 'A disclosed account uses the login name "admin"',
    remediation:
      'Create a new administrator with a non-obvious login, log in with it, and delete the "admin" account (attributing its content to the new user). Brute-force bots try "admin" first.',
  },

  // Files that must never be public
  "security.config_backup_exposed": {
    category: "security",
    wordpressOnly: "files",
    severity: "critical",
    title: "No backup copy of wp-config.php is downloadable",
    failTitle: "A backup copy of wp-config.php is downloadable",
    remediation: `Delete the wp-config.php copies (.bak, ~, .save, .old, .orig, .txt, .swp) from the server now, then change the database password and the keys and salts in wp-config.php (https://api.wordpress.org/secret-key/1.1/salt/): assume they were read. ${BLOCK_FILES} Also deny anything named wp-config* (nginx: location ~* /\\.?wp-config { deny all; }).`,
  },
  "security.env_file_exposed": {
    category: "security",
    severity: "critical",
    title: "No .env file is downloadable",
    failTitle: "A .env file is downloadable",
    remediation: `Move .env out of the web root (or delete it) and rotate every secret it contains. ${BLOCK_FILES}`,
  },
  "security.db_dump_exposed": {
    category: "security",
    severity: "critical",
    title: "No database dump is downloadable",
    failTitle: "A database dump is downloadable",
    remediation: `Delete the SQL dump from the web root now; it holds user e-mails and password hashes, so reset passwords and treat it as a data breach. Keep backups outside the web root or in off-site storage. ${BLOCK_FILES}`,
  },
  "security.installer_exposed": {
    category: "security",
    wordpressOnly: "files",
    severity: "critical",
    title: "The WordPress installer is not open to the public",
    failTitle: "The WordPress installer is open to the public",
    remediation:
      "Finish the installation now (or take the site offline): anyone reaching an unconfigured install.php or setup-config.php can connect it to their own database and run code on your server. Then check the server for files you did not create.",
  },
  "security.emergency_script_exposed": {
    category: "security",
    wordpressOnly: "files",
    severity: "critical",
    title: "No emergency password-reset script (emergency.php) is public",
    failTitle: "An emergency password-reset script (emergency.php) is public",
    remediation:
      "Delete emergency.php from the server now — it lets anyone reset the administrator password — then change the administrator passwords.",
  },
  "security.git_exposed": {
    category: "security",
    severity: "high",
    title: "The .git repository is not downloadable",
    failTitle: "The .git repository is downloadable",
    remediation:
      "Block the .git directory (nginx: location ~ /\\.git { deny all; }; Apache: RedirectMatch 404 /\\.git) or deploy without it. Its history can be downloaded and may hold credentials: rotate any that were ever committed.",
  },
  "security.debug_log_exposed": {
    category: "security",
    wordpressOnly: "files",
    severity: "high",
    title: "The WordPress debug log is not public",
    failTitle: "The WordPress debug log is public",
    remediation:
      "Delete debug.log from the content directory (wp-content/, or its renamed folder such as app/) and turn off logging on production (define('WP_DEBUG', false); or define('WP_DEBUG_LOG', '/path/outside/webroot/debug.log');). Block *.log files: nginx: location ~* \\.log$ { deny all; }; Apache: <FilesMatch \"\\.log$\"> Require all denied </FilesMatch>.",
  },
  "security.installer_log_exposed": {
    category: "security",
    wordpressOnly: "files",
    severity: "high",
    title: "No migration installer log (Duplicator installer-log.txt) is public",
    failTitle: "A migration installer log (Duplicator installer-log.txt) is public",
    remediation:
      'Delete installer-log.txt and any leftover installer.php, archives and dup-installer folders from the web root (Duplicator: Tools → "Remove Installation Files").',
  },
  "security.backup_dir_exposed": {
    category: "security",
    wordpressOnly: "files",
    severity: "high",
    title: "The backup directory (backup-db/ in the content directory) cannot be browsed",
    failTitle: "The backup directory (backup-db/ in the content directory) can be browsed",
    remediation:
      "Move backups out of the web root or to off-site storage, and turn off directory listings (nginx: autoindex off; Apache: Options -Indexes).",
  },
  "security.directory_listing": {
    category: "security",
    wordpressOnly: "files",
    severity: "medium",
    title: "Directories (uploads, plugins, themes) do not list their files",
    failTitle: "Directories (uploads, plugins, themes) list their files",
    remediation:
      "Turn off directory listings: nginx: autoindex off; (the default); Apache: Options -Indexes in the virtual host or .htaccess. An empty index.php in each folder also works — WordPress ships one in wp-content/plugins/ and wp-content/themes/, so a listing there means it was deleted: restore it. A listed plugins/ folder names every installed plugin, including inactive ones: delete the plugins you do not use.",
  },

  // Protection
  "security.waf": {
    category: "security",
    severity: "info",
    title: "A web application firewall or firewall plugin is in front of WordPress",
    failTitle: "No web application firewall or firewall plugin was seen in front of WordPress",
    remediation:
      "Consider a WAF: at the edge (Cloudflare, Sucuri, your host's) or as a plugin (Wordfence, Solid Security, NinjaFirewall). It blocks known exploit patterns and slows brute-force attacks while you update.",
  },
} as const satisfies Record<string, CheckDefinition>;
