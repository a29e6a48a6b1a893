/**
 * How the analyzer introduces itself to the sites it analyses: a name, what it does and where
 * to read about it, so a site owner who finds it in a log knows who asked and why.
 */
export const ANALYZER_USER_AGENT = "wpreport/0.1 (WordPress site analyzer; +https://github.com/wpreport/wpreport)";
