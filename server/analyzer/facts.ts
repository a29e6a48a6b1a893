/**
 * Facts: what detect and extract established about the site. Detectors and extractors read
 * the artifacts; audits read facts only — an audit that needs something of a raw answer gets
 * it as a fact an extractor established (extract/*.ts), so every check is a pure function of
 * what the report and these internal facts say.
 *
 * The facts that are in the report have their shapes in shared/report.ts (snake_case); the
 * internal ones (camelCase) are defined here and never reach the report.
 */
import type {
  Component,
  DisclosedUser,
  HostingInfo,
  IntelSource,
  PerformanceInfo,
  PluginInfo,
  Redirect,
  SecurityInfo,
  SeoInfo,
  ThemeInfo,
  VulnerabilityData,
  WordPressInfo,
} from "../../shared/report.ts";
import type { Artifacts } from "./artifacts.ts";
import type { DirectoryListing } from "./detect/directory-listing.ts";
import type { SitePaths } from "./detect/site-paths.ts";
import type { PageModel } from "./parse/page.ts";
import type { PageResource } from "./parse/urls.ts";
import type { ProbeKey } from "./probe-keys.ts";

/** What the audits need to know about the component intelligence itself. */
export interface IntelFacts {
  /** A vulnerability source answered: no advisory for a checked component means none is known. */
  vulnerabilityData: boolean;
  /** Which components no source checked, and the statement the checks and readers show. */
  coverage: VulnerabilityData;
  sources: IntelSource[];
}

/** The output of the detect stage. */
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

/** The homepage as audits see it: the response without its body, and the parsed page (extract/homepage.ts). */
export interface HomepageFacts {
  /** The URL that answered, after redirects. */
  url: string;
  status: number;
  /** The redirects between the URL as given and `url`. */
  redirects: Redirect[];
  /** Response headers, lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The body was cut at the size cap. */
  truncated: boolean;
  /** Decoded size of the body, bytes. */
  bodyBytes: number;
  /** Content-Encoding, or null. */
  encoding: string | null;
  /** Time to first byte, median of the samples, ms. */
  ttfbMs: number;
  /** The page model: tags, scripts, images, headings… (parse/page.ts). */
  page: PageModel;
  /** What the page loads through tag attributes (script src, link href, img src…), resolved, in page order. */
  resources: readonly PageResource[];
}

/** A probe's answer without its body: what an audit quotes ("<url> → 404"). */
export interface ProbeAnswer {
  /** The URL that answered (after redirects when the probe follows them). */
  url: string;
  /** The URL asked (before any redirect): where the probe went (detect/site-paths.ts, askedAt). */
  asked: string;
  status: number;
  /** The Location header, as sent, when there was one. */
  location?: string;
}

/**
 * What met a probe instead of an answer about what it asked: a firewall's challenge or block
 * page, a 429 that persisted after its Retry-After, a server error, a timeout or no answer at
 * all. A check that would pass on a miss skips when one of its probes met one
 * (audit/obstacles.ts): a challenge is not an answer.
 */
export interface Obstacle {
  kind: "challenge" | "block" | "rate_limited" | "server_error" | "timeout" | "no_answer";
  /** The firewall whose page it was, when its marks name it. */
  vendor: string | null;
  /** The path asked, as quoted: "/.git/HEAD". */
  path: string;
  /** What met it, as a clause: "a Cloudflare firewall challenge answered /.git/HEAD". */
  reason: string;
}

/** What the probes got (extract/probe-answers.ts). */
export interface ProbeFacts {
  /** Answers by probe key (probe-kinds.ts); a probe that got no answer is absent. */
  answers: Partial<Record<ProbeKey, ProbeAnswer>>;
  /** Probes that were asked and got no answer: each has an entry in the report's errors. */
  failed: ReadonlySet<ProbeKey>;
  /** Probes whose answer says nothing about what they asked, with what met them (Obstacle). */
  obstacles: Partial<Record<ProbeKey, Obstacle>>;
}

/** A directory that lists its files (security.directory_listing), with what the listing shows. */
export interface ListedDirectory {
  /** As in security.directory_listing. */
  url: string;
  /** The parsed listing; null when its rows could not be read. */
  listing: DirectoryListing | null;
}

/** Everything an audit may read. */
export interface Facts extends Omit<Detected, "artifacts"> {
  performance: PerformanceInfo;
  seo: SeoInfo;
  security: SecurityInfo;
  /** Internal from here on: not in the report. */
  homepage: HomepageFacts;
  probes: ProbeFacts;
  /** The listed directories, in the order of security.directory_listing (extract/security.ts). */
  listedDirectories: ListedDirectory[];
}
