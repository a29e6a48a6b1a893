/**
 * Keeping the names index current from WordPress.org's directory API, on the intel refresh
 * schedule (docs/intel.md, "The names index"):
 *
 * - **full listing** (no index yet, or the last one is a week old): every page of
 *   `query_plugins` / `query_themes` with `browse=updated`, 250 entries a page, the fields
 *   we do not use turned off; then page 1 again down to the listing's start, to catch what
 *   was updated (and so moved up) while it was being read. The first page is asked
 *   conditionally (If-None-Match / If-Modified-Since from the last listing): a 304 ends it.
 * - **incremental** (otherwise): the same listing, newest first, only down to the served
 *   index's newest `last_updated` (less a day); a refresh where nothing changed costs one
 *   request. The new generation is the served one with the changed entries replaced.
 *
 * Each refresh writes a new generation and swaps it in whole (directory.store.ts); any
 * failure — an error answer after retries, a body that is not a page, a listing that shrank
 * to less than half of what is served, the deadline — keeps the served index and records why.
 */
import type { DirectoryType } from "../../analyzer/detect/finders/directory.ts";
import type { Logger } from "../../platform/logger.ts";
import { readCappedText } from "../read-capped.ts";
import type { DirectoryStore } from "./directory.store.ts";
import { type DirectoryEntry, type DirectoryFormatError, type DirectoryPage, parsePage } from "./entries.ts";

export type NamesOutcome =
  | { source: string; result: "updated"; records: number; changed: number }
  | { source: string; result: "not_modified" }
  | { source: string; result: "skipped"; reason: string }
  | { source: string; result: "failed"; error: string };

export interface DirectoryRefreshOptions {
  /** Entries per page (the API allows up to 250). */
  perPage?: number;
  /** A full listing again after this long. */
  fullEveryMs?: number;
  /** The whole refresh of one type must end within this. */
  deadlineMs?: number;
  /** One page's request. */
  pageTimeoutMs?: number;
  /** Attempts per page (a 5xx or a network error is retried). */
  attempts?: number;
  /** Pause before a retry. */
  retryDelayMs?: number;
}

/** How long one type's refresh may take (a full listing of the plugins is ~240 pages). */
export const NAMES_REFRESH_DEADLINE_MS = 30 * 60_000;

export const NAMES_SOURCE = { plugin: "names:plugins", theme: "names:themes" } as const;
/** The API answers at most 999 pages (meta.trac.wordpress.org #8049): 249,750 entries at 250 a page. */
const MAX_PAGES = 999;
/** Lean answers are ~100 KB a page; anything near this is wrong. */
const MAX_PAGE_BYTES = 16 * 1024 * 1024;
const DAY_MS = 24 * 3600_000;

/** Fields of query_plugins / query_themes answers turned off: only name, slug, installs and dates are read. */
const FIELDS_OFF: Record<DirectoryType, string[]> = {
  plugin: [
    "description",
    "sections",
    "short_description",
    "icons",
    "banners",
    "tags",
    "ratings",
    "rating",
    "num_ratings",
    "contributors",
    "versions",
    "screenshots",
    "reviews",
    "donate_link",
    "compatibility",
    "homepage",
    "download_link",
    "downloaded",
    "support_threads",
    "support_threads_resolved",
    "requires",
    "tested",
    "requires_php",
    "requires_plugins",
    "added",
    "author",
    "author_profile",
  ],
  theme: [
    "description",
    "sections",
    "screenshot_url",
    "preview_url",
    "author",
    "rating",
    "ratings",
    "num_ratings",
    "homepage",
    "reviews",
    "tags",
    "versions",
    "downloaded",
    "requires",
    "requires_php",
  ],
};
const FIELDS_ON = ["active_installs", "last_updated"];

interface Fetched {
  page: DirectoryPage;
  etag: string | null;
  lastModified: string | null;
}

class PageError extends Error {
  override name = "PageError";
  constructor(
    message: string,
    readonly retry: boolean,
  ) {
    super(message);
  }
}

export class DirectoryRefresher {
  private readonly perPage: number;
  private readonly fullEveryMs: number;
  private readonly deadlineMs: number;
  private readonly pageTimeoutMs: number;
  private readonly attempts: number;
  private readonly retryDelayMs: number;

  constructor(
    private readonly store: DirectoryStore,
    /** WordPress.org's API origin; null when WPORG_API_URL=off. */
    private readonly baseUrl: string | null,
    private readonly userAgent: string,
    private readonly logger: Logger,
    options: DirectoryRefreshOptions = {},
  ) {
    this.perPage = Math.min(250, Math.max(1, options.perPage ?? 250));
    this.fullEveryMs = options.fullEveryMs ?? 7 * DAY_MS;
    this.deadlineMs = options.deadlineMs ?? NAMES_REFRESH_DEADLINE_MS;
    this.pageTimeoutMs = options.pageTimeoutMs ?? 60_000;
    this.attempts = options.attempts ?? 3;
    this.retryDelayMs = options.retryDelayMs ?? 2_000;
  }

  get enabled(): boolean {
    return this.baseUrl !== null;
  }

  pageUrl(type: DirectoryType, page: number): string {
    const base = (this.baseUrl ?? "").replace(/\/+$/, "");
    const kind = type === "plugin" ? "plugins" : "themes";
    const query = new URLSearchParams({
      action: type === "plugin" ? "query_plugins" : "query_themes",
      "request[browse]": "updated",
      "request[per_page]": String(this.perPage),
      "request[page]": String(page),
    });
    for (const field of FIELDS_OFF[type]) query.set(`request[fields][${field}]`, "0");
    for (const field of FIELDS_ON) query.set(`request[fields][${field}]`, "1");
    return `${base}/${kind}/info/1.2/?${query}`;
  }

  /** True when lookups are on and no names index has been imported or fetched yet. */
  async neverFetched(): Promise<boolean> {
    if (!this.baseUrl) return false;
    const rows = await this.store.sources();
    return !rows.some((row) => row.generation !== null);
  }

  async refreshAll(): Promise<NamesOutcome[]> {
    return [await this.refresh("plugin"), await this.refresh("theme")];
  }

  async refresh(type: DirectoryType): Promise<NamesOutcome> {
    const source = NAMES_SOURCE[type];
    if (!this.baseUrl) return { source, result: "skipped", reason: "WPORG_API_URL is off" };
    const served = await this.store.source(type);
    const deadline = Date.now() + this.deadlineMs;
    const full =
      !served?.generation ||
      !served.full_at ||
      !served.updated_through ||
      Date.now() - new Date(served.full_at).getTime() > this.fullEveryMs;
    let session: Awaited<ReturnType<DirectoryStore["beginImport"]>> | undefined;
    try {
      session = await this.store.beginImport(type);
      if (full) {
        const startedAt = new Date();
        const validators = served?.generation ? { etag: served.etag, lastModified: served.last_modified } : null;
        const first = await this.page(type, 1, deadline, validators);
        if (first === "not_modified") {
          await session.abort(null);
          await this.store.recordCheck(type, null);
          return { source, result: "not_modified" };
        }
        await session.add(first.page.entries);
        const pages = Math.min(first.page.pages, MAX_PAGES);
        for (let page = 2; page <= pages; page++) await session.add((await this.listed(type, page, deadline)).entries);
        // Entries updated while the listing was read moved above where it was: read them again.
        const catchUp = await this.changedSince(type, new Date(startedAt.getTime() - 3600_000), deadline);
        await session.add(catchUp);
        const count = await session.commitChecked(served?.record_count ?? 0, {
          origin: "wordpress.org",
          full: true,
          etag: first.etag,
          lastModified: first.lastModified,
        });
        return { source, result: "updated", records: count, changed: count };
      }
      const since = new Date(new Date(served?.updated_through as Date).getTime() - DAY_MS);
      // The day before the newest entry is read again (dates are coarse); what did not change is left be.
      const listed = await this.changedSince(type, since, deadline);
      const known = await this.store.served(
        type,
        listed.map((entry) => entry.slug),
      );
      const changed = listed.filter((entry) => {
        const before = known.get(entry.slug);
        return !before || before.name !== entry.name || before.updated_at?.getTime() !== entry.updatedAt?.getTime();
      });
      if (changed.length === 0) {
        await session.abort(null);
        await this.store.recordCheck(type, null);
        return { source, result: "not_modified" };
      }
      const slugs = [...new Set(changed.map((entry) => entry.slug))];
      await session.copyForward(slugs);
      await session.add(changed);
      const count = await session.commit({
        origin: "wordpress.org",
        full: false,
        etag: served?.etag,
        lastModified: served?.last_modified,
      });
      return { source, result: "updated", records: count, changed: slugs.length };
    } catch (error) {
      const message = (error as Error).message;
      if (session) await session.abort(message).catch(() => {});
      else await this.store.recordCheck(type, message).catch(() => {});
      this.logger.warn("names index refresh failed", { source, error: message });
      return { source, result: "failed", error: message };
    }
  }

  /** Entries updated at `since` or later, newest first, reading pages until an older one shows up. */
  private async changedSince(type: DirectoryType, since: Date, deadline: number): Promise<DirectoryEntry[]> {
    const changed: DirectoryEntry[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const answer = await this.listed(type, page, deadline);
      let older = false;
      for (const entry of answer.entries) {
        if (entry.updatedAt && entry.updatedAt < since) older = true;
        else changed.push(entry);
      }
      if (older || page >= answer.pages || answer.entries.length === 0) break;
    }
    return changed;
  }

  /** A page, retried on network errors and 5xx; "not_modified" only when validators were sent. */
  private async page(
    type: DirectoryType,
    page: number,
    deadline: number,
    validators: { etag: string | null; lastModified: string | null } | null = null,
  ): Promise<Fetched | "not_modified"> {
    for (let attempt = 1; ; attempt++) {
      if (Date.now() > deadline) throw new PageError("the refresh took longer than its deadline", false);
      try {
        return await this.fetchPage(type, page, deadline, validators);
      } catch (error) {
        const retry = error instanceof PageError ? error.retry : true;
        if (!retry || attempt >= this.attempts) {
          throw new Error(
            `${type === "plugin" ? "query_plugins" : "query_themes"} page ${page}: ${(error as Error).message}`,
          );
        }
        await Bun.sleep(this.retryDelayMs * attempt);
      }
    }
  }

  /** A page asked without validators (it cannot be "not modified"). */
  private async listed(type: DirectoryType, page: number, deadline: number): Promise<DirectoryPage> {
    const answer = await this.page(type, page, deadline);
    if (answer === "not_modified") throw new Error("a page was answered 304 without a conditional request");
    return answer.page;
  }

  private async fetchPage(
    type: DirectoryType,
    page: number,
    deadline: number,
    validators: { etag: string | null; lastModified: string | null } | null,
  ): Promise<Fetched | "not_modified"> {
    const headers: Record<string, string> = { "user-agent": this.userAgent, accept: "application/json" };
    if (validators?.etag) headers["if-none-match"] = validators.etag;
    if (validators?.lastModified) headers["if-modified-since"] = validators.lastModified;
    let response: Response;
    try {
      response = await fetch(this.pageUrl(type, page), {
        headers,
        signal: AbortSignal.timeout(Math.max(1, Math.min(this.pageTimeoutMs, deadline - Date.now()))),
      });
    } catch (error) {
      throw new PageError(`WordPress.org did not answer: ${(error as Error).message}`, true);
    }
    if (response.status === 304 && validators) {
      await response.body?.cancel().catch(() => {});
      return "not_modified";
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      throw new PageError(
        `WordPress.org answered ${response.status}`,
        response.status >= 500 || response.status === 429,
      );
    }
    const text = await readCappedText(response, MAX_PAGE_BYTES, {
      tooLarge: () => new PageError("the answer is too large", false),
    });
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      throw new PageError("the answer is not JSON (cut short?)", true);
    }
    let parsed: DirectoryPage;
    try {
      parsed = parsePage(data);
    } catch (error) {
      throw new PageError((error as DirectoryFormatError).message, false);
    }
    if (parsed.type !== type) throw new PageError(`the answer lists ${parsed.type}s, not ${type}s`, false);
    if (parsed.invalid.length > 0)
      this.logger.warn("names index: unusable directory entries skipped", {
        type,
        page,
        first: parsed.invalid[0],
        count: parsed.invalid.length,
      });
    return { page: parsed, etag: response.headers.get("etag"), lastModified: response.headers.get("last-modified") };
  }
}
