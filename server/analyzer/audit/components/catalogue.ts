/**
 * Component checks (ids `components.*`): WordPress core, theme, plugins and PHP.
 * Outdated/vulnerable checks need component intelligence (server/analyzer/intel,
 * docs/intel.md); without it they are `skip`.
 */
import type { CheckDefinition } from "../check-definition.ts";

export const COMPONENT_CHECKS = {
  "components.core_outdated": {
    category: "components",
    wordpressOnly: "check",
    severity: "medium",
    title: "WordPress core is the latest release",
    failTitle: "WordPress core is not the latest release",
    remediation:
      "Update WordPress (Dashboard → Updates, or WP-CLI: wp core update) after a backup, and turn on automatic minor updates (they are the security releases). Test major updates on a staging copy first.",
  },
  "components.core_vulnerable": {
    category: "components",
    wordpressOnly: "check",
    severity: "high",
    title: "The installed WordPress version has no known vulnerabilities",
    failTitle: "The installed WordPress version has known vulnerabilities",
    remediation:
      "Update WordPress to at least the version that fixes each listed vulnerability (Dashboard → Updates, or wp core update); the latest release fixes all of them. Keep automatic minor updates on.",
  },
  "components.plugins_outdated": {
    category: "components",
    wordpressOnly: "check",
    severity: "medium",
    title: "Every detected plugin is at its latest version",
    failTitle: "Detected plugins are not at their latest version",
    remediation:
      "Update the listed plugins (Plugins → Update, or wp plugin update --all) after a backup, and consider auto-updates for plugins you trust. Replace plugins that are no longer maintained.",
  },
  "components.plugins_vulnerable": {
    category: "components",
    wordpressOnly: "check",
    severity: "high",
    title: "No detected plugin version has known vulnerabilities",
    failTitle: "Detected plugin versions have known vulnerabilities",
    remediation:
      "Update each listed plugin to at least its fixed version (wp plugin update <slug>). If no fix exists, deactivate and delete the plugin, or put a WAF rule (Wordfence, Cloudflare, Patchstack) in front until one does.",
  },
  "components.theme_outdated": {
    category: "components",
    wordpressOnly: "check",
    severity: "low",
    title: "The active theme (and its parent theme) is at its latest version",
    failTitle: "The active theme (or its parent theme) is not at its latest version",
    remediation:
      "Update the theme (Appearance → Themes, or wp theme update <slug>) after a backup. Keep customisations in a child theme so updates do not overwrite them.",
  },
  "components.theme_vulnerable": {
    category: "components",
    wordpressOnly: "check",
    severity: "high",
    title: "The active theme (and its parent theme) has no known vulnerabilities",
    failTitle: "The active theme (or its parent theme) has known vulnerabilities",
    remediation:
      "Update the theme to at least its fixed version (wp theme update <slug>). If no fix exists, switch to another theme. Inactive themes can be attacked too: delete the ones you do not use.",
  },
  "components.php_eol": {
    category: "components",
    severity: "medium",
    title: "The disclosed PHP version still receives security fixes",
    failTitle: "The disclosed PHP version no longer receives security fixes",
    remediation:
      "Move the site to a supported PHP version (8.2 or newer as of the table's date) in your host's control panel, after testing the site on it (e.g. with the PHP Compatibility Checker on a staging copy). Then hide the version: expose_php = Off.",
  },
  "components.plugin_versions_exposed": {
    category: "components",
    wordpressOnly: "check",
    severity: "low",
    title: "Plugins' readme.txt files do not disclose their versions",
    failTitle: "Plugins' readme.txt files disclose their versions",
    remediation:
      'Block plugin and theme readme files at the web server — nginx: location ~* ^/wp-content/(plugins|themes)/[^/]+/readme\\.txt$ { deny all; }; Apache: <FilesMatch "^readme\\.txt$"> Require all denied </FilesMatch> in wp-content/.htaccess. Keeping plugins updated matters more than hiding versions.',
  },
} as const satisfies Record<string, CheckDefinition>;
