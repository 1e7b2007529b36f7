import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import * as tar from 'tar-stream';
import { KNEX } from '../../../platform/tokens';
import { CLUSTERS, MAIN_CLUSTER, type Clusters } from '../../../platform/clusters/clusters';
import { PlatformDb } from '../../../platform/tenant-scope/platform-db';
import { configItemDefinition } from '../../../platform/config-items/config-item-registry';
import type { Tenant } from '../../../platform/tenant-scope/tenant';
import { FILE_STORE, type FileStore } from '../../../platform/files/file-store';
import { catalogSequences, catalogTables, type CatalogTable } from './schema-catalog';
import {
  ARCHIVE_FORMAT,
  CHUNK_BYTES,
  CHUNK_ROWS,
  CREDENTIAL_COLUMNS,
  SECRET_COLUMNS,
  tableEntry,
  type ArchiveEnd,
  type ArchiveManifest,
  type SecretsHeld,
} from './tenant-archive.format';

export interface ArchiveExportOptions {
  /** Secret config item values (api.oauth.secret) and every SECRET_COLUMNS column (webhook, API-client and identity-provider secrets, mailed passwords). */
  secrets: boolean;
  /** The CREDENTIAL_COLUMNS (persons.password_hash, ...); without them nobody can log in after a restore. */
  passwordHashes: boolean;
  onProgress?: (line: string) => void;
}

type Pack = tar.Pack;

/** The secret and credential columns of a table this export leaves out. */
function blanked(t: CatalogTable, o: ArchiveExportOptions): string[] {
  return [...(o.passwordHashes ? [] : (CREDENTIAL_COLUMNS[t.name] ?? [])), ...(o.secrets ? [] : (SECRET_COLUMNS[t.name] ?? []))];
}

/** For the manifest: every secret or credential column the export carries, with the rows that hold a value in it. */
async function heldColumns(trx: Knex.Transaction, schema: string, tables: CatalogTable[], o: ArchiveExportOptions): Promise<Record<string, number>> {
  const held: Record<string, number> = {};
  for (const t of tables) {
    const out = blanked(t, o);
    const carried = [...new Set([...(CREDENTIAL_COLUMNS[t.name] ?? []), ...(SECRET_COLUMNS[t.name] ?? [])])].filter(
      (c) => t.columns.includes(c) && !out.includes(c),
    );
    for (const c of carried) {
      const r = await trx.raw("select count(*)::int as n from ??.?? where ?? is not null and ??::text <> ''", [schema, t.name, c, c]);
      held[`${t.name}.${c}`] = r.rows[0].n;
    }
  }
  return held;
}

function entry(pack: Pack, name: string, data: Buffer): Promise<void> {
  // The callback fires once the pack has taken the bytes, which follows the reader's pace.
  return new Promise((resolve, reject) => pack.entry({ name, size: data.length, mode: 0o600 }, data, (err) => (err ? reject(err) : resolve())));
}

const json = (v: unknown) => Buffer.from(`${JSON.stringify(v, null, 2)}\n`);
const lines = (rows: string[]) => Buffer.from(rows.length ? `${rows.join('\n')}\n` : '');

/**
 * Streams one tenant as a tenant-archive/1 (tenant-archive.format.ts): every table of its
 * schema as-is, from one repeatable-read snapshot, read with a cursor so that no table is
 * ever held in memory; then its platform rows and its file store namespace.
 */
@injectable()
export class ArchiveExporter {
  constructor(
    @inject(KNEX) private readonly knex: Knex,
    @inject(FILE_STORE) private readonly files: FileStore,
    @inject(CLUSTERS) private readonly clusters: Clusters,
  ) {}

  async export(tenant: Tenant, out: Writable, options: ArchiveExportOptions): Promise<ArchiveEnd> {
    const progress = options.onProgress ?? (() => {});
    const pack = tar.pack();
    const piping = pipeline(pack as unknown as NodeJS.ReadableStream, createGzip(), out);
    try {
      // config items live in the platform database: one snapshot with the tenant's rows on main only
      const main = this.clusters.checked(tenant.cluster) === MAIN_CLUSTER;
      const end = await this.clusters
        .admin(tenant.cluster)
        .transaction((trx) => this.writeDatabase(trx, main ? trx : this.knex, tenant, pack, options, progress), {
          isolationLevel: 'repeatable read',
          readOnly: true,
        });
      for (const key of await this.files.list(tenant.schema)) {
        const data = await this.files.get(tenant.schema, key);
        // Removed since the listing: its row is gone from the snapshot's future too.
        if (!data) continue;
        await entry(pack, `files/${key}`, data);
        end.files += 1;
        end.file_bytes += data.length;
        if (end.files % 500 === 0) progress(`${tenant.slug}: ${end.files} files, ${end.file_bytes} bytes`);
      }
      progress(`${tenant.slug}: ${end.files} files, ${end.file_bytes} bytes`);
      await entry(pack, 'end.json', json(end));
      pack.finalize();
      await piping;
      return end;
    } catch (err) {
      pack.destroy(err as Error);
      await piping.catch(() => {});
      throw err;
    }
  }

  private async writeDatabase(
    trx: Knex.Transaction,
    platformDb: Knex | Knex.Transaction,
    tenant: Tenant,
    pack: Pack,
    o: ArchiveExportOptions,
    progress: (l: string) => void,
  ) {
    const schema = tenant.schema;
    const tables = await catalogTables(trx, schema);
    const sequences = [];
    for (const s of await catalogSequences(trx, schema)) {
      const v = await trx.raw('select last_value::text as last_value, is_called from ??.??', [schema, s.sequence]);
      sequences.push({ ...s, ...v.rows[0] });
    }
    const migrations: string[] = await trx.withSchema(schema).table('schema_migrations').orderBy('name').pluck('name');
    const platform = await platformDb.withSchema(PlatformDb.SCHEMA).table('tenants').where({ id: tenant.id }).first('status', 'created_at');
    const items = await platformDb.raw(
      'select item_id, row_to_json(x)::text as j from (select item_id, value, updated_at from ??.config_items where tenant_id = ? order by item_id) x',
      [PlatformDb.SCHEMA, tenant.id],
    );
    const kept = (items.rows as { item_id: string; j: string }[]).filter((r) => o.secrets || !configItemDefinition(r.item_id)?.secret);
    const secretsHeld: SecretsHeld = {
      columns: await heldColumns(trx, schema, tables, o),
      config_items: kept.filter((r) => configItemDefinition(r.item_id)?.secret).map((r) => r.item_id),
    };
    const manifest: ArchiveManifest = {
      format: ARCHIVE_FORMAT,
      exported_at: new Date().toISOString(),
      tenant: { slug: tenant.slug, name: tenant.name, status: platform.status, hosts: [...tenant.hosts], created_at: platform.created_at.toISOString() },
      schema: { version: migrations.at(-1) ?? null, migrations },
      secrets: o.secrets,
      password_hashes: o.passwordHashes,
      secrets_held: secretsHeld,
      tables: tables.map((t) => ({ name: t.name, columns: t.columns })),
      sequences,
    };
    await entry(pack, 'manifest.json', json(manifest));
    const end: ArchiveEnd = { tables: {}, config_items: 0, config_item_changes: 0, files: 0, file_bytes: 0 };
    for (const t of tables) {
      end.tables[t.name] = await this.writeTable(trx, schema, t, pack, o, (rows) => progress(`${tenant.slug}: ${t.name}: ${rows} rows`));
    }

    await entry(pack, 'platform/config_items.jsonl', lines(kept.map((r) => r.j)));
    // Secret changes carry no values (config_item_changes stores none), so history is always complete.
    const changes = await platformDb.raw(
      `select row_to_json(x)::text as j from (select item_id, changed_by, changed_at, secret, old_value, new_value
         from ??.config_item_changes where tenant_id = ? order by id) x`,
      [PlatformDb.SCHEMA, tenant.id],
    );
    await entry(pack, 'platform/config_item_changes.jsonl', lines(changes.rows.map((r: { j: string }) => r.j)));
    end.config_items = kept.length;
    end.config_item_changes = changes.rows.length;
    return end;
  }

  /** One table through a server-side cursor, in entries of at most CHUNK_ROWS rows / CHUNK_BYTES. */
  private async writeTable(
    trx: Knex.Transaction,
    schema: string,
    t: CatalogTable,
    pack: Pack,
    o: ArchiveExportOptions,
    progress: (rows: number) => void,
  ): Promise<number> {
    const blank = blanked(t, o);
    // NULL, or '' where the column is NOT NULL (the import must take the row; '' matches no secret)
    const select = t.columns.map((c) => (!blank.includes(c) ? 't.??' : t.notNull.includes(c) ? "'' as ??" : 'null as ??')).join(', ');
    // Primary key order makes two exports of equal data equal; link tables keep their physical order.
    const order = t.primaryKey.length ? t.primaryKey.map(() => 't.??').join(', ') : 't.ctid';
    await trx.raw(`declare archive_rows no scroll cursor for select row_to_json(x)::text as j from (select ${select} from ??.?? t order by ${order}) x`, [
      ...t.columns,
      schema,
      t.name,
      ...t.primaryKey,
    ]);
    let rows = 0;
    let chunk: string[] = [];
    let bytes = 0;
    let n = 0;
    const flush = async () => {
      await entry(pack, tableEntry(t.name, ++n), lines(chunk));
      chunk = [];
      bytes = 0;
    };
    for (;;) {
      const batch = await trx.raw('fetch forward 1000 from archive_rows');
      if (batch.rows.length === 0) break;
      for (const r of batch.rows as { j: string }[]) {
        chunk.push(r.j);
        bytes += r.j.length;
        rows += 1;
        if (chunk.length >= CHUNK_ROWS || bytes >= CHUNK_BYTES) {
          await flush();
          progress(rows);
        }
      }
    }
    await trx.raw('close archive_rows');
    if (chunk.length || n === 0) await flush();
    if (rows === 0 || rows % CHUNK_ROWS !== 0) progress(rows);
    return rows;
  }
}
