import { z } from 'zod';

/**
 * tenant-archive/1: a gzip'd tar that holds everything of one tenant. The format only grows:
 * readers ignore manifest keys they do not know, and tables come from the catalog, so a new
 * tenant table needs no new format version. Entries, in this order:
 *   manifest.json                      tenant, schema version, tables (load order) and sequences
 *   tables/<table>/<n>.jsonl           rows as PostgreSQL's row_to_json wrote them, in chunks
 *   platform/config_items.jsonl        the tenant's config item rows (secrets only when asked for)
 *   platform/config_item_changes.jsonl config item history, oldest first
 *   files/<key>                        the bytes of the tenant's file store namespace
 *   end.json                           counts: a truncated archive is refused, never half-imported
 */
export const ARCHIVE_FORMAT = 'tenant-archive/1';

/** Rows (or bytes) per table entry: tar needs each entry's size up front, so chunks bound memory. */
export const CHUNK_ROWS = 5000;
export const CHUNK_BYTES = 8 * 1024 * 1024;

/** Columns that hold credentials; blanked unless password hashes are asked for. */
export const CREDENTIAL_COLUMNS: Record<string, string[]> = {
  persons: ['password_hash', 'pending_password_hash'],
};

/** Columns that hold integration secrets (write-only for the API, issue 37); blanked unless secrets are asked for. */
export const SECRET_COLUMNS: Record<string, string[]> = {
  identity_providers: ['client_secret'],
  // the tenant's Ed25519 signing key of verifiable credentials (issue 38): without it a new key is made on first use
  credential_keys: ['private_key'],
  // personal calendar feed tokens (issue 39): only their SHA-256 is stored, still a key to the feed
  calendar_feeds: ['token_hash'],
};

export const ArchiveManifest = z.object({
  format: z.literal(ARCHIVE_FORMAT),
  exported_at: z.string(),
  tenant: z.object({
    slug: z.string(),
    name: z.string(),
    status: z.enum(['active', 'suspended']),
    hosts: z.array(z.string()),
    created_at: z.iso.datetime({ offset: true }),
  }),
  schema: z.object({
    version: z.string().nullable(),
    migrations: z.array(z.string()),
  }),
  secrets: z.boolean(),
  password_hashes: z.boolean(),
  tables: z.array(z.object({ name: z.string(), columns: z.array(z.string()) })),
  sequences: z.array(
    z.object({ sequence: z.string(), table: z.string(), column: z.string(), last_value: z.string(), is_called: z.boolean() }),
  ),
});
export type ArchiveManifest = z.infer<typeof ArchiveManifest>;

export const ArchiveEnd = z.object({
  tables: z.record(z.string(), z.number().int()),
  config_items: z.number().int(),
  config_item_changes: z.number().int(),
  files: z.number().int(),
  file_bytes: z.number().int(),
});
export type ArchiveEnd = z.infer<typeof ArchiveEnd>;

export const TABLE_ENTRY = /^tables\/([a-z_][a-z0-9_]*)\/\d+\.jsonl$/;
export const FILE_ENTRY = /^files\/([a-z0-9_-]+)$/i;
export const PLATFORM_ENTRY = /^platform\/(config_items|config_item_changes)\.jsonl$/;

export const tableEntry = (table: string, n: number) => `tables/${table}/${String(n).padStart(6, '0')}.jsonl`;
