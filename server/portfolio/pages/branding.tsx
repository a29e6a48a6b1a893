/**
 * Branding settings: the agency name, logo and colour that client reports carry. The logo is
 * shown as an <img> of its data: URL, never as markup.
 */

import type { WebContext } from "../../web/context.ts";
import { FormError } from "../../web/pages/common.tsx";
import { Csrf } from "../../web/render.tsx";
import { MAX_BRAND_NAME, MAX_LOGO_BYTES } from "../branding.service.ts";
import type { Branding } from "../client-report.ts";

export const DEFAULT_COLOR = "#1f5fd6";

export function BrandingPage({
  ctx,
  branding,
  saved,
  error,
  values,
}: {
  ctx: WebContext;
  branding: Branding;
  saved: boolean;
  error?: string;
  /** What was sent, when it is shown again with an error. */
  values?: { name: string; color: string };
}) {
  const name = values?.name ?? branding.name ?? "";
  const color = values?.color ?? branding.color ?? DEFAULT_COLOR;
  return (
    <div class="card stack narrow-wide">
      <h1>Client report branding</h1>
      <p class="muted">
        Client reports are white-label: they carry your agency's name, logo and colour, and no mention of us.
      </p>
      {saved ? (
        <div class="alert success" role="status" id="branding-saved">
          Saved. Client reports use it from now on.
        </div>
      ) : null}
      <FormError message={error} />
      <form method="post" action="/settings/branding" enctype="multipart/form-data">
        <Csrf ctx={ctx} />
        <div class="field">
          <label for="brand-name">
            Agency name <span class="hint">Up to {MAX_BRAND_NAME} characters; leave empty for none.</span>
          </label>
          <input
            id="brand-name"
            name="name"
            type="text"
            maxLength={MAX_BRAND_NAME}
            value={name}
            autocomplete="organization"
          />
        </div>
        <div class="field">
          <label for="brand-color">
            Colour <span class="hint">Headings and the chart line.</span>
          </label>
          <input id="brand-color" name="color" type="color" value={color} />
        </div>
        <div class="field">
          <label for="brand-logo">
            Logo{" "}
            <span class="hint">
              PNG, JPEG or SVG, at most {MAX_LOGO_BYTES / 1024} KB.{" "}
              {branding.logo ? "Choose a file to replace it." : ""}
            </span>
          </label>
          <input id="brand-logo" name="logo" type="file" accept="image/png,image/jpeg,image/svg+xml" />
        </div>
        {branding.logo ? (
          <div class="field">
            <p class="small muted">Current logo:</p>
            <img class="brand-logo-preview" src={branding.logo} alt={`${branding.name ?? "Agency"} logo`} />
            <label>
              <input type="checkbox" name="remove_logo" value="1" /> Remove the logo
            </label>
          </div>
        ) : null}
        <button type="submit">Save</button>
      </form>
    </div>
  );
}
