/**
 * An observation: one place where the site names a component, before it is known which
 * component that is. The finders (credits, meta tags, inline scripts, form attributes,
 * headers, asset parameters, REST namespaces) turn the page into observations; the names
 * query is made from them (observations.ts) and resolve.ts turns them into plugins.
 */

/** The evidence classes these finders produce (docs/detection.md). */
export type ObservationSource =
  | "meta_generator"
  | "html_comment"
  | "header"
  | "meta_tag"
  | "inline_script"
  | "hidden_input"
  | "data_attribute"
  | "asset_param"
  | "rest_namespace";

/**
 * What an observation names:
 * - `name`: a display name written as words ("Powered by Foo Gallery v2.1" → the words after
 *   the credit); resolution finds the longest known name they start with and reads the
 *   version right after it. `needs` says what must follow the name for it to count:
 *   `version` (a bare "Foo Gallery" at a comment's start could be any text), `version-or-plugin`,
 *   or `nothing` (the context already says it is software: a generator tag, a credit phrase);
 * - `identifier`: a slug-shaped word the site's code uses (a localized object, a version
 *   variable, a header, a meta name), with the identifiers it may stand for, most specific first;
 * - `slug`: a slug written out (a link to wordpress.org/plugins/<slug>/, a REST namespace).
 */
export type Subject =
  | { kind: "name"; words: string[]; needs: "version" | "version-or-plugin" | "nothing" }
  | {
      kind: "identifier";
      candidates: string[];
      /** False: the identifier must match a known plugin (no slug is inferred from it alone). */
      mayInfer: boolean;
      /** True: stripped stems (elementorFrontendConfig → elementor) may match too, not only the whole identifier. */
      stems: boolean;
    }
  | { kind: "slug"; slug: string };

export interface Observation {
  source: ObservationSource;
  /** What was seen, already cleaned (siteText) and capped. */
  value: string;
  url?: string;
  /**
   * The text it read (`comment:<n>`, `generator:<content>`, `header:<name>`): a signature
   * pattern that matched the same text has counted it already.
   */
  seen: string;
  subject: Subject;
  /**
   * For a link to a plugin's page in the WordPress.org directory: whether the comment's own
   * words name that plugin too ("Optimized with WP Meteor v3.4.0 - https://wordpress.org/plugins/wp-meteor/").
   * A bare link, or a link beside another plugin's credit, is a recommendation, not proof it is installed.
   */
  linkNamed?: boolean;
  /**
   * The plugin whose files the page loads right beside this comment (only whitespace between
   * the comment and the `<script>`/`<link>` of that plugin's folder): a credit there is that plugin's.
   */
  beside?: string;
  /**
   * For an `anywhere` name: the words of the same name that stand before it ("Simple" of
   * "Simple Events Calendar 1.3.5" read as "Events Calendar"): it is only the end of a longer name.
   */
  nameBefore?: string[];
  /** For identifier and slug subjects: the version the site states next to it (strictly validated). */
  version?: string;
  /**
   * Where in a comment a name was read: at its start, after a credit phrase, after
   * "using"/"uses" (a library the credited plugin uses, when the comment's start already
   * named a plugin: "Easy FancyBox 1.8.18 using FancyBox 1.3.28"), after a loose "… by", or
   * `anywhere`: the exact words right before a version somewhere in the comment ("Generated
   * in 0.3 s by Foo Cache 1.2" → "Foo Cache", with `version`); such a name must be one an
   * index knows — no slug is made up from it.
   */
  phrase?: "opening" | "credit" | "using" | "loose" | "anywhere";
}
