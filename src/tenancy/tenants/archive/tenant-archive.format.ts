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

/**
 * Columns that hold login credentials; blanked unless password hashes are asked for
 * (`--no-password-hashes`, `password_hashes=0`). A mailed password not used yet is in SECRET_COLUMNS too.
 */
export const CREDENTIAL_COLUMNS: Record<string, string[]> = {
  persons: ['password_hash', 'pending_password_hash', 'pending_password_earlier'],
};

/**
 * Every column that holds a secret: integration secrets (write-only for the API, issue 37), webhook
 * signing secrets, API-client secret hashes and the material of mailed passwords not used yet.
 * Blanked unless secrets are asked for (`--no-secrets`, `secrets=0`): NULL, or '' where the column
 * is NOT NULL (an API client's '' hash matches no secret; a webhook endpoint without a secret sends
 * nothing until its secret is rotated). A new secret column goes here: the archive test greps a
 * secret-free archive for every secret a tenant can hold. Secret config items (api.oauth.secret, the
 * SWT key) are the config item registry's `secret: true`.
 */
export const SECRET_COLUMNS: Record<string, string[]> = {
  identity_providers: ['client_secret'],
  // the tenant's Ed25519 signing key of verifiable credentials (issue 38): without it a new key is made on first use
  credential_keys: ['private_key'],
  // personal calendar feed tokens (issue 39): only their SHA-256 is stored, still a key to the feed
  calendar_feeds: ['token_hash'],
  webhook_endpoints: ['secret', 'previous_secret'],
  api_clients: ['secret_hash'],
  persons: ['pending_password_hash', 'pending_password_earlier', 'pending_password_expires_at', 'pending_password_delivery_id'],
};

/** What secrets and credentials an archive holds: `table.column` with the rows that have a value, and the secret config items set. */
export const SecretsHeld = z.object({
  columns: z.record(z.string(), z.number().int()),
  config_items: z.array(z.string()),
});
export type SecretsHeld = z.infer<typeof SecretsHeld>;

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
  /** Since issue 40; absent from older archives. */
  secrets_held: SecretsHeld.optional(),
  tables: z.array(z.object({ name: z.string(), columns: z.array(z.string()) })),
  sequences: z.array(z.object({ sequence: z.string(), table: z.string(), column: z.string(), last_value: z.string(), is_called: z.boolean() })),
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
