/**
 * The agency's branding of client reports (docs/portfolio.md#branding): a name, a logo and a
 * colour, in the account's `branding` row (this feature's own table).
 *
 * The logo is at most 100 KB of PNG, JPEG or SVG, recognised by its bytes (not by the file
 * name or the browser's content type), and kept as a data: URL. It is only ever shown as the
 * `src` of an <img>: an SVG there runs no script and loads nothing, and its markup is never
 * put into a page.
 */
import { Parser } from "htmlparser2";
import { oneLine } from "../../shared/untrusted-text.ts";
import type { Sql } from "../platform/db/database.ts";
import type { Branding } from "./client-report.ts";

export const MAX_LOGO_BYTES = 100 * 1024;
export const MAX_BRAND_NAME = 100;
export const LOGO_TYPES = ["image/png", "image/jpeg", "image/svg+xml"] as const;

/** A value the branding form cannot take; its message is shown on the form. */
export class BrandingError extends Error {
  constructor(
    readonly field: "name" | "logo" | "color",
    message: string,
  ) {
    super(message);
    this.name = "BrandingError";
  }
}

export function logoTooLarge(size: number): BrandingError {
  return new BrandingError(
    "logo",
    `The logo is ${Math.ceil(size / 1024)} KB; it may be at most ${MAX_LOGO_BYTES / 1024} KB.`,
  );
}

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const startsWith = (bytes: Uint8Array, prefix: number[]) => prefix.every((byte, index) => bytes[index] === byte);

/** True when the text is XML whose root element is <svg> (after a declaration, comments, a doctype). */
function isSvg(bytes: Uint8Array): boolean {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return false;
  }
  let root: string | undefined;
  const parser = new Parser(
    {
      onopentagname(name) {
        root ??= name;
        parser.pause();
      },
    },
    { xmlMode: true },
  );
  parser.write(text.slice(0, 4096));
  return root !== undefined && /^(?:[a-z][\w.-]*:)?svg$/i.test(root);
}

/** The logo's media type by its bytes, or a BrandingError. */
export function logoType(bytes: Uint8Array): (typeof LOGO_TYPES)[number] {
  if (bytes.length === 0) throw new BrandingError("logo", "The logo file is empty.");
  if (bytes.length > MAX_LOGO_BYTES) throw logoTooLarge(bytes.length);
  if (startsWith(bytes, PNG)) return "image/png";
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (isSvg(bytes)) return "image/svg+xml";
  throw new BrandingError("logo", "The logo must be a PNG, JPEG or SVG image.");
}

/** The logo as a data: URL. */
export function logoDataUrl(bytes: Uint8Array): string {
  const type = logoType(bytes);
  return `data:${type};base64,${Buffer.from(bytes).toString("base64")}`;
}

/** The agency name as stored: one line, controls removed, or null when empty. */
export function brandName(text: string): string | null {
  const name = oneLine(text).replace(/\s+/g, " ").trim();
  if (name === "") return null;
  if (name.length > MAX_BRAND_NAME)
    throw new BrandingError("name", `The name may be at most ${MAX_BRAND_NAME} characters.`);
  return name;
}

/** #rrggbb (lower case), or null when empty. */
export function brandColor(text: string): string | null {
  const color = text.trim().toLowerCase();
  if (color === "") return null;
  if (!/^#[0-9a-f]{6}$/.test(color))
    throw new BrandingError("color", "The colour must be written #rrggbb, e.g. #1f5fd6.");
  return color;
}

export interface BrandingChange {
  name: string;
  color: string;
  /** New logo bytes, "remove", or "keep" (the stored one stays). */
  logo: Uint8Array | "remove" | "keep";
}

export class BrandingService {
  constructor(private readonly sql: Sql) {}

  async get(accountId: string): Promise<Branding> {
    const [row] = await this.sql<
      { brand_name: string | null; brand_logo: string | null; brand_color: string | null }[]
    >`
      select brand_name, brand_logo, brand_color from branding where account_id = ${accountId}`;
    return { name: row?.brand_name ?? null, logo: row?.brand_logo ?? null, color: row?.brand_color ?? null };
  }

  /** Validates every field (BrandingError for the first bad one), then stores them together. */
  async save(accountId: string, change: BrandingChange): Promise<Branding> {
    const name = brandName(change.name);
    const color = brandColor(change.color);
    const logo = change.logo === "keep" ? undefined : change.logo === "remove" ? null : logoDataUrl(change.logo);
    const { sql } = this;
    const [row] = await sql<{ brand_name: string | null; brand_logo: string | null; brand_color: string | null }[]>`
      insert into branding (account_id, brand_name, brand_color, brand_logo)
      values (${accountId}, ${name}, ${color}, ${logo ?? null})
      on conflict (account_id) do update set
        brand_name = excluded.brand_name,
        brand_color = excluded.brand_color
        ${logo !== undefined ? sql`, brand_logo = excluded.brand_logo` : sql``}
      returning brand_name, brand_logo, brand_color`;
    return { name: row?.brand_name ?? null, logo: row?.brand_logo ?? null, color: row?.brand_color ?? null };
  }
}
