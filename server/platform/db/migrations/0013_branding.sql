-- Branding of client reports (docs/portfolio.md#branding): the agency's name, logo and colour.
-- Written only by server/portfolio/ (branding.service.ts).
create table branding (
  account_id text primary key references accounts (id) on delete cascade,
  brand_name text check (brand_name is null or char_length(brand_name) between 1 and 100),
  -- A data: URL (image/png, image/jpeg or image/svg+xml, base64) of at most 100 KB of image.
  brand_logo text check (brand_logo is null or char_length(brand_logo) <= 140000),
  brand_color text check (brand_color is null or brand_color ~ '^#[0-9a-f]{6}$')
);
