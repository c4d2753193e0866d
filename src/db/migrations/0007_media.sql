-- Media. Image bytes are kept once per venue under the sha256 of the stored
-- (re-encoded) bytes; products, the logo and published snapshots refer to them by key, and a blob
-- goes when the last of them lets go (media.repository.ts, deleteUnreferencedBlobs).
create table media_blobs (
  venue_id uuid not null references venues (id) on delete cascade,
  key text not null,
  content_type text not null,
  byte_size integer not null,
  -- The bytes with the database store (the default); null when an S3 bucket holds them.
  data bytea,
  created_at timestamptz(3) not null default now(),
  primary key (venue_id, key)
);

-- S3 store only: blobs no longer referenced, whose objects are deleted from the bucket after the
-- transaction commits (or by the next sweep, when that fails).
create table media_deletions (
  venue_id uuid not null references venues (id) on delete cascade,
  key text not null,
  created_at timestamptz(3) not null default now(),
  primary key (venue_id, key)
);

-- { width, height, bytes, variants: [{ key, width, height, bytes }] }, largest variant first; the
-- URLs are made when the image is read, so PUBLIC_BASE_URL / MEDIA_PUBLIC_URL can change.
alter table products drop column image_url;
alter table products add column image jsonb;
alter table venue_settings add column logo jsonb;
-- The blob keys a snapshot shows: an image stays while any snapshot still shows it.
alter table menu_publications add column media_keys text[] not null default '{}';
