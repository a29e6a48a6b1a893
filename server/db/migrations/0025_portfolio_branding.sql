-- Branding of client reports (docs/portfolio.md#branding): the agency's name, logo and colour,
-- kept with the account's alert settings as issue 25's design has it. The monitoring feature's
-- alert settings (recipients, digest, events) share the row; whichever migration runs first
-- creates the table, and each adds only its own columns, so the two apply in either order.
-- Only server/portfolio/branding.service.ts writes the brand_* columns.
create table if not exists alert_settings (
  account_id text primary key references accounts (id) on delete cascade
);

alter table alert_settings
  add column if not exists brand_name text check (brand_name is null or char_length(brand_name) between 1 and 100),
  -- A data: URL (image/png, image/jpeg or image/svg+xml, base64) of at most 100 KB of image.
  add column if not exists brand_logo text check (brand_logo is null or char_length(brand_logo) <= 140000),
  add column if not exists brand_color text check (brand_color is null or brand_color ~ '^#[0-9a-f]{6}$');
