/**
 * Facts: what detect and extract established about the site, handed to every audit.
 * Audits read facts (and, where they need the raw answer, artifacts) and return checks.
 */
import type {
  Component,
  DisclosedUser,
  HostingInfo,
  IntelSource,
  PerformanceInfo,
  PluginInfo,
  SecurityInfo,
  SeoInfo,
  ThemeInfo,
  WordPressInfo,
} from "../../shared/report.ts";
import type { Artifacts } from "./artifacts.ts";
import type { SitePaths } from "./detect/site-paths.ts";

/** The output of the detect stage. */
/** What the audits need to know about the component intelligence itself. */
export interface IntelFacts {
  /** A vulnerability source is loaded: no advisory for a component means none is known. */
  vulnerabilityData: boolean;
  sources: IntelSource[];
}

export interface Detected {
  artifacts: Artifacts;
  paths: SitePaths;
  wordpress: WordPressInfo;
  theme: ThemeInfo | null;
  plugins: PluginInfo[];
  /** Themes installed besides the active one (aggressive enumeration only). */
  installedThemes: Component[];
  hosting: HostingInfo;
  users: DisclosedUser[];
  /** Set when the intel has been applied (applyIntel); absent means no data. */
  intel?: IntelFacts;
}

/** Everything an audit may read. */
export interface Facts extends Detected {
  performance: PerformanceInfo;
  seo: SeoInfo;
  security: SecurityInfo;
}
