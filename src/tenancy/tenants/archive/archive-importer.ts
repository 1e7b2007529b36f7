import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { inject, injectable } from 'tsyringe';
import * as tar from 'tar-stream';
import type { z } from 'zod';
import { CLUSTERS, type Clusters } from '../../../platform/clusters/clusters';
import { ENV } from '../../../platform/tokens';
import type { Env } from '../../../platform/config/env';
import { platformAndTenant } from '../../../platform/clusters/cluster-transaction';
import { TenantPlacement } from '../placement/placement';
import { SchemaTakenError, assertSchemaFree } from '../placement/spare-schemas';
import { PlatformDb } from '../../../platform/tenant-scope/platform-db';
import { TenantStore } from '../../../platform/tenant-scope/tenant-store';
import { TenantResolver } from '../../../platform/tenant-scope/tenant-resolver';
import { schemaNameForSlug } from '../../../platform/tenant-scope/tenant-db';
import { migrateSchema } from '../../../platform/migrations/migration-runner';
import { tenantMigrations } from '../../../../migrations/tenant';
import { FILE_STORE, type FileStore } from '../../../platform/files/file-store';
import { ImportError, assertTenantFree, insertFreeTenant, type ImportOptions } from '../tenant-importer';
import { ImportTooLargeError } from '../tenant-import-error';
import { catalogTables } from './schema-catalog';
import { HostName, TenantSlug } from '../tenant-import.schema';
import { ArchiveEnd, ArchiveManifest, FILE_ENTRY, PLATFORM_ENTRY, TABLE_ENTRY } from './tenant-archive.format';
import { PLATFORM_COLUMNS, disableTriggers, enableTriggers, insertRows, resetSequences } from './archive-load';

type Source = AsyncIterable<unknown> & { header: tar.Header };

/** Largest table, manifest or end entry accepted (read whole to be parsed); the exporter writes at most CHUNK_BYTES. */
const MAX_JSON_ENTRY_BYTES = 64 * 1024 * 1024;

/** What an archive may hold (env ARCHIVE_IMPORT_MAX_*); past any of them the import is a 413. */
export interface ArchiveLimits {
  /** The gzip'd archive as it arrives. */
  bodyBytes: number;
  /** The entries' bytes in all, unpacked. */
  unpackedBytes: number;
  /** One entry's bytes. */
  entryBytes: number;
  entries: number;
}

export const archiveLimits = (env: Env): ArchiveLimits => ({
  bodyBytes: env.ARCHIVE_IMPORT_MAX_BYTES,
  unpackedBytes: env.ARCHIVE_IMPORT_MAX_UNPACKED_BYTES,
  entryBytes: env.ARCHIVE_IMPORT_MAX_ENTRY_BYTES,
  entries: env.ARCHIVE_IMPORT_MAX_ENTRIES,
});

/**
 * Counts what an archive holds against its limits as each entry's header arrives, before a byte
 * of it is read: a tar header states the entry's exact size, so a bomb is refused up front.
 */
class ArchiveBudget {
  private entries = 0;
  private unpacked = 0;
  constructor(private readonly limits: ArchiveLimits) {}

  admit(header: tar.Header): void {
    const size = header.size ?? 0;
    if (++this.entries > this.limits.entries) throw new ImportTooLargeError(`archive: more than ${this.limits.entries} entries (ARCHIVE_IMPORT_MAX_ENTRIES)`);
    if (size > this.limits.entryBytes) {
      throw new ImportTooLargeError(
        `archive: entry ${header.name} unpacks to ${size} bytes, more than ${this.limits.entryBytes} (ARCHIVE_IMPORT_MAX_ENTRY_BYTES)`,
      );
    }
    this.unpacked += size;
    if (this.unpacked > this.limits.unpackedBytes) {
      throw new ImportTooLargeError(`archive: unpacks to more than ${this.limits.unpackedBytes} bytes (ARCHIVE_IMPORT_MAX_UNPACKED_BYTES)`);
    }
  }
}

/** Passes the gzip'd bytes on and fails once more than `limit` have come. */
function bodyCounter(limit: number, onTooLarge: (err: ImportTooLargeError) => void): Transform {
  let bytes = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      if (bytes <= limit) return done(null, chunk);
      const err = new ImportTooLargeError(`archive: larger than ${limit} bytes (ARCHIVE_IMPORT_MAX_BYTES)`);
      onTooLarge(err);
      done(err);
    },
  });
}

/** An entry's bytes as they unpack (tar-stream's entries are streamx streams, not Node's). */
async function* chunks(entry: Source): AsyncIterable<Buffer> {
  for await (const part of entry) yield part as Buffer;
}

/** A JSON entry, read whole: at most MAX_JSON_ENTRY_BYTES. */
async function read(entry: Source, name: string, limit = MAX_JSON_ENTRY_BYTES): Promise<Buffer> {
  if (entry.header.size > limit) throw new ImportTooLargeError(`archive: entry ${name} is larger than ${limit} bytes`);
  const parts: Buffer[] = [];
  for await (const part of entry) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

function parseJson<T>(schema: z.ZodType<T>, name: string, data: Buffer): T {
  let value: unknown;
  try {
    value = JSON.parse(data.toString('utf8'));
  } catch (err) {
    throw new ImportError(`archive: ${name} is not JSON: ${(err as Error).message}`);
  }
  const r = schema.safeParse(value);
  if (!r.success) throw new ImportError(`archive: ${name} at ${r.error.issues[0].path.join('.') || '(root)'}: ${r.error.issues[0].message}`);
  return r.data;
}

/**
 * Recreates a tenant from a tenant-archive/1 exactly (same ids, timestamps, relations): schema
 * migrated to the archive's version, rows loaded as they were with triggers off, sequences
 * restored, then the newer migrations run over the loaded data. One transaction: a bad or
 * truncated archive leaves nothing behind (files written so far are removed again). Bounded:
 * files/ entries are streamed to the file store, JSON entries are at most 64 MiB, and the body,
 * the unpacked bytes, each entry and the number of entries are capped (ARCHIVE_IMPORT_MAX_*, 413).
 */
@injectable()
export class ArchiveImporter {
  constructor(
    @inject(CLUSTERS) private readonly clusters: Clusters,
    @inject(TenantPlacement) private readonly placement: TenantPlacement,
    @inject(TenantStore) private readonly store: TenantStore,
    @inject(TenantResolver) private readonly resolver: TenantResolver,
    @inject(FILE_STORE) private readonly files: FileStore,
    @inject(ENV) private readonly env: Env,
  ) {}

  async import(
    input: Readable,
    options: ImportOptions = {},
    limits: ArchiveLimits = archiveLimits(this.env),
  ): Promise<{ tenantId: number; slug: string; schema: string }> {
    const progress = options.onProgress ?? (() => {});
    const extract = tar.extract();
    let streamError: Error | undefined;
    let tooLarge: ImportTooLargeError | undefined;
    const counter = bodyCounter(limits.bodyBytes, (err) => (tooLarge = err));
    const gunzip = createGunzip();
    const budget = new ArchiveBudget(limits);
    // Not in the pipeline: a refused import drains the rest of an HTTP body instead of
    // destroying the request, so that the client still gets its 409 / 413 / 420 answer.
    input.on('error', (err) => counter.destroy(err));
    input.pipe(counter);
    const piping = pipeline(counter, gunzip, extract as unknown as NodeJS.WritableStream).catch((err: Error) => {
      streamError = err;
    });
    const entries = extract[Symbol.asyncIterator]();
    const next = async (): Promise<Source | null> => {
      let entry: Source;
      try {
        const r = await entries.next();
        if (r.done) return null;
        entry = r.value as Source;
      } catch (err) {
        await piping;
        if (tooLarge) throw tooLarge;
        throw new ImportError(`archive is not a complete gzip'd tar: ${(streamError ?? (err as Error)).message}`);
      }
      budget.admit(entry.header);
      // Only plain files: a directory, link or device entry is nothing an export writes.
      if (entry.header.type !== 'file') throw new ImportError(`archive: entry ${entry.header.name} is a ${entry.header.type}, not a file`);
      return entry;
    };
    const written: string[] = [];
    let schema = '';
    try {
      const first = await next();
      if (first?.header.name !== 'manifest.json')
        throw new ImportError(`archive: the first entry must be manifest.json, found ${first?.header.name ?? 'nothing'}`);
      const manifest = parseJson(ArchiveManifest, 'manifest.json', await read(first, 'manifest.json'));
      const version = manifest.schema.version;
      const known = version === null ? 0 : tenantMigrations.findIndex((m) => m.name === version) + 1;
      if (known === 0 && version !== null) {
        throw new ImportError(`archive: schema version ${version} is newer than this server's (${tenantMigrations.at(-1)!.name}); upgrade the server first`);
      }
      const slug = options.slug ?? manifest.tenant.slug;
      const hosts = (options.hosts ?? manifest.tenant.hosts).map((h) => h.toLowerCase());
      for (const [param, schemaOf, value] of [['slug', TenantSlug, slug], ...hosts.map((h) => ['host', HostName, h] as const)] as const) {
        if (!schemaOf.safeParse(value).success) throw new ImportError(`archive: bad ${param} "${value}"`);
      }
      schema = schemaNameForSlug(slug);
      await assertTenantFree(this.store, slug, hosts);
      const tenantSchema = schema;
      const cluster = await this.placement.choose(options.cluster);
      const tenantId = await platformAndTenant(this.clusters, cluster, async (platformTrx, trx) => {
        const id = await insertFreeTenant(this.store, platformTrx, { slug, name: manifest.tenant.name, schema: tenantSchema, hosts, cluster });
        await platformTrx
          .withSchema(PlatformDb.SCHEMA)
          .table('tenants')
          .where({ id })
          .update({ status: manifest.tenant.status, created_at: manifest.tenant.created_at });
        try {
          await assertSchemaFree(trx, tenantSchema);
        } catch (err) {
          throw err instanceof SchemaTakenError ? new ImportError(`tenant "${slug}": ${err.message}`) : err;
        }
        await migrateSchema(trx, tenantSchema, tenantMigrations.slice(0, known));
        progress(`${slug}: schema ${tenantSchema} created at version ${version ?? '(none)'} on cluster ${cluster}`);
        const target = new Map((await catalogTables(trx, tenantSchema)).map((t) => [t.name, t]));
        const mode = await disableTriggers(trx, tenantSchema, [...target.keys()]);
        const counts: Record<string, number> = {};
        let end: ArchiveEnd | null = null;
        let current = '';
        const platform = { config_items: 0, config_item_changes: 0 };
        const stored = { files: 0, bytes: 0 };
        for (let e = await next(); e; e = await next()) {
          const name = e.header.name;
          if (end) throw new ImportError(`archive: entry ${name} after end.json`);
          const table = TABLE_ENTRY.exec(name)?.[1];
          const file = FILE_ENTRY.exec(name)?.[1];
          const platformTable = PLATFORM_ENTRY.exec(name)?.[1] as keyof typeof platform | undefined;
          if (table) {
            const declared = manifest.tables.find((t) => t.name === table);
            const into = target.get(table);
            if (!declared || !into)
              throw new ImportError(`archive: ${name}: table ${table} is not ${declared ? 'in the schema at this version' : 'in manifest.json'}`);
            const missing = declared.columns.filter((c) => !into.columns.includes(c));
            if (missing.length) throw new ImportError(`archive: ${name}: unknown columns ${missing.join(', ')}`);
            const cols = declared.columns.filter((c) => into.insertable.includes(c));
            if (current && current !== table) progress(`${slug}: ${current}: ${counts[current]} rows`);
            current = table;
            const rows = await insertRows(trx, tenantSchema, table, cols, name, await read(e, name));
            counts[table] = (counts[table] ?? 0) + rows;
          } else if (platformTable) {
            platform[platformTable] += await insertRows(
              platformTrx,
              PlatformDb.SCHEMA,
              platformTable,
              PLATFORM_COLUMNS[platformTable],
              name,
              await read(e, name),
              { tenant_id: id },
            );
          } else if (file) {
            // streamed to disk as it unpacks: memory holds one chunk, whatever the file's size
            written.push(file);
            const bytes = await this.files.putStream(tenantSchema, file, chunks(e)).catch((err: Error) => {
              throw tooLarge ?? (err instanceof ImportError ? err : new ImportError(`archive: ${name}: ${err.message}`));
            });
            stored.files += 1;
            stored.bytes += bytes;
            if (stored.files % 500 === 0) progress(`${slug}: ${stored.files} files, ${stored.bytes} bytes`);
          } else if (name === 'end.json') {
            end = parseJson(ArchiveEnd, name, await read(e, name));
          } else {
            throw new ImportError(`archive: unknown entry ${name}`);
          }
        }
        if (current) progress(`${slug}: ${current}: ${counts[current]} rows`);
        progress(`${slug}: ${stored.files} files, ${stored.bytes} bytes`);
        if (!end) throw new ImportError('archive is truncated: end.json is missing');
        const checks: [string, number, number][] = [
          ['config_items', platform.config_items, end.config_items],
          ['config_item_changes', platform.config_item_changes, end.config_item_changes],
          ['files', stored.files, end.files],
          ['file bytes', stored.bytes, end.file_bytes],
          ...Object.entries(end.tables).map(([t, n]): [string, number, number] => [`rows of table ${t}`, counts[t] ?? 0, n]),
        ];
        for (const [what, got, want] of checks) {
          if (got !== want) throw new ImportError(`archive is incomplete: ${got} ${what}, end.json says ${want}`);
        }
        await resetSequences(trx, tenantSchema, manifest.sequences);
        await enableTriggers(trx, tenantSchema, [...target.keys()], mode);
        const later = await migrateSchema(trx, tenantSchema, tenantMigrations);
        if (later.applied.length) progress(`${slug}: migrated ${later.applied.join(', ')}`);
        return id;
      });
      await this.resolver.publishChange(tenantId);
      return { tenantId, slug, schema };
    } catch (err) {
      input.unpipe(counter);
      input.resume();
      extract.destroy();
      if (schema) await this.leaveNothing(schema, written);
      throw tooLarge ?? err;
    } finally {
      await piping;
    }
  }

  /** A refused import removes the files it wrote, and the namespace too when nothing else is in it (never another tenant's: the slug was free). */
  private async leaveNothing(schema: string, written: string[]): Promise<void> {
    for (const key of written) await this.files.remove(schema, key).catch(() => {});
    const left = await this.files.list(schema).catch(() => ['?']);
    if (left.length === 0) await this.files.removeNamespace(schema).catch(() => {});
  }
}
