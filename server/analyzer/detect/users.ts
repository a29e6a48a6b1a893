/**
 * User accounts the site discloses: the REST users endpoint, author archives (/?author=1
 * redirecting to /author/<login>/), core's users sitemap (every author archive URL), oEmbed's
 * author, and feed authors. Login names are what brute-force attacks need, so each one is
 * reported with where it was seen. Only slugs are logins (WordPress's user_nicename, the
 * login unless changed): the REST API's `slug`, author archive URLs, oEmbed's `author_url`.
 * A display name — a feed's dc:creator, oEmbed's `author_name`, a byline — is not one.
 */
import type { DisclosedUser } from "../../../shared/report.ts";
import type { Artifacts, HttpArtifact } from "../artifacts.ts";
import { resolveUrl } from "../artifacts.ts";
import { pageOf } from "../parse/page.ts";
import { decodedSegment } from "../parse/urls.ts";
import { siteText } from "../untrusted-text.ts";

const MAX_USERS = 50;
/** The shape of a login name or slug as WordPress allows it. */
export const LOGIN = /^[a-z0-9._@ -]{1,60}$/i;

function authorSlugFromUrl(url: string | undefined, base: string): string | null {
  const parsed = resolveUrl(url, base);
  const slug = parsed ? /\/author\/([^/?#]+)\/?/.exec(parsed.pathname)?.[1] : undefined;
  return slug ? decodedSegment(slug) : null;
}

export function detectUsers(artifacts: Artifacts): DisclosedUser[] {
  const users = new Map<string, DisclosedUser>();
  const add = (
    user: { id?: number | null; username?: string | null; display_name?: string | null },
    source: string,
  ) => {
    const username = user.username && LOGIN.test(user.username) ? siteText(user.username, 60) : null;
    const displayName = user.display_name ? siteText(user.display_name, 100) : null;
    const key = username
      ? `u:${username.toLowerCase()}`
      : user.id
        ? `i:${user.id}`
        : displayName
          ? `d:${displayName}`
          : undefined;
    if (!key) return;
    // Merge with an entry known by the same id or display name.
    const existing =
      users.get(key) ??
      [...users.values()].find(
        (entry) =>
          (user.id && entry.id === user.id) ||
          // A name alone (feed, oEmbed) belongs to the account already known under that name.
          (displayName && entry.display_name === displayName && (!username || !entry.username)),
      );
    if (existing) {
      existing.id ??= user.id ?? null;
      existing.username ??= username;
      existing.display_name ??= displayName;
      if (!existing.sources.includes(source)) existing.sources.push(source);
      return;
    }
    if (users.size >= MAX_USERS) return;
    users.set(key, { id: user.id ?? null, username, display_name: displayName, sources: [source] });
  };

  const rest = artifacts.probes.rest_users;
  if (rest?.status === 200) {
    try {
      const list = JSON.parse(rest.body) as unknown;
      if (Array.isArray(list)) {
        for (const entry of list.slice(0, MAX_USERS)) {
          if (!entry || typeof entry !== "object") continue;
          const user = entry as { id?: unknown; slug?: unknown; name?: unknown };
          add(
            {
              id: typeof user.id === "number" ? user.id : null,
              username: typeof user.slug === "string" ? user.slug : null,
              display_name: typeof user.name === "string" ? user.name : null,
            },
            "rest_api",
          );
        }
      }
    } catch {
      // cut at the size cap or not JSON: nothing reliable to report
    }
  }

  const author = artifacts.probes.author_1;
  if (author) {
    const fromRedirect =
      author.status >= 300 && author.status < 400 ? authorSlugFromUrl(author.headers.location, author.url) : null;
    const fromBody =
      author.status === 200
        ? /\bauthor-([a-z0-9._-]+)\b(?![^"]*\bauthor-\d+\b)/i.exec(pageOf(author).bodyClass)?.[1]
        : undefined;
    const slug = fromRedirect ?? (fromBody && !/^\d+$/.test(fromBody) ? fromBody : null);
    if (slug) add({ id: 1, username: slug }, "author_archive");
  }

  const sitemap = artifacts.probes.users_sitemap;
  if (sitemap?.status === 200 && /<urlset\b/i.test(sitemap.body.slice(0, 5_000))) {
    // Bounded: a hostile sitemap is at most the probe's cap, and each <loc> at most 2 KB.
    for (const match of sitemap.body.matchAll(/<loc>\s*([^<\s]{1,2048})\s*<\/loc>/gi)) {
      const slug = authorSlugFromUrl(match[1], sitemap.url);
      if (slug) add({ username: slug }, "sitemap");
      if (users.size >= MAX_USERS) break;
    }
  }

  const oembed = oembedAuthor(artifacts.probes.oembed);
  if (oembed) add({ username: oembed.slug, display_name: oembed.name }, "oembed");

  const feed = artifacts.probes.feed;
  if (feed?.status === 200) {
    for (const match of feed.body.matchAll(
      /<dc:creator>\s*(?:<!\[CDATA\[)?([^<\]]{1,100})(?:\]\]>)?\s*<\/dc:creator>/gi,
    )) {
      add({ display_name: match[1]?.trim() }, "feed");
      if (users.size >= MAX_USERS) break;
    }
  }
  return [...users.values()];
}

/** oEmbed's author: its display name, and the slug its author_url gives (/author/<slug>/), when present. */
export function oembedAuthor(
  answer: HttpArtifact | undefined,
): { slug: string | null; name: string | null } | undefined {
  if (answer?.status !== 200) return undefined;
  try {
    const data = JSON.parse(answer.body) as { author_name?: unknown; author_url?: unknown };
    if (!data || typeof data !== "object") return undefined;
    const slug = typeof data.author_url === "string" ? authorSlugFromUrl(data.author_url, answer.url) : null;
    const name = typeof data.author_name === "string" ? data.author_name : null;
    return slug || name ? { slug, name } : undefined;
  } catch {
    return undefined; // not JSON
  }
}
