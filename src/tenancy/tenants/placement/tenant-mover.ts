import { inject, injectable } from 'tsyringe';
import { Client } from 'pg';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { KNEX, LOGGER } from '../../../platform/tokens';
import { ApiError } from '../../../platform/errors/api-error';
import { PlatformDb } from '../../../platform/tenant-scope/platform-db';
import { TenantStore } from '../../../platform/tenant-scope/tenant-store';
import { TenantResolver } from '../../../platform/tenant-scope/tenant-resolver';
import { CLUSTERS, MAIN_CLUSTER, type Clusters } from '../../../platform/clusters/clusters';
import { migrateSchema } from '../../../platform/migrations/migration-runner';
import { tenantMigrations } from '../../../../migrations/tenant';
import type { Tenant } from '../../../platform/tenant-scope/tenant';
import { catalogSequences, catalogTables, type CatalogTable } from '../archive/schema-catalog';
import { captureTriggerSql, fenceTriggerSql, installMoveHelpers, removeMoveTriggers, withTableLocks } from './move-triggers';
import { changedTables, copyChanges, copyRows, copySequences, countRows } from './move-copy';
import { MoveLeftovers } from './move-leftovers';

export interface MoveOptions {
  onProgress?: (line: string) => void;
  /** How long the old copy stays (fenced) after the switch, for processes that missed the news. */
  dropAfterMs?: number;
  /** How long the pause may wait for the tables' locks before the move gives up. */
  lockDeadlineMs?: number;
}

export interface MoveReport {
  slug: string;
  from: string;
  to: string;
  tables: number;
  rows: number;
  /** Rows copied again during the write pause (written while the first copy ran). */
  changedRows: number;
  /** From the source's tables locked to every process told of the switch. */
  writePauseMs: number;
  seconds: number;
  /** False when the old copy could not be dropped: the move stays `switched` and the sweeper drops it. */
  oldCopyDropped: boolean;
}

type Step = (line: string) => void;

/**
 * Moves a tenant's schema to another cluster while it keeps serving (see README.md, "Moving a
 * tenant"): change capture on, a copy from one snapshot, a short write pause in which the rows
 * written meanwhile are copied again, counts verified per table and a fence put on the old copy,
 * then the placement switch and a pub/sub message to every process, and the old copy dropped
 * after a grace period. Until the switch commits, a failure leaves the tenant where it was.
 */
@injectable()
export class TenantMover {
  constructor(
    @inject(KNEX) private readonly knex: Knex,
    @inject(CLUSTERS) private readonly clusters: Clusters,
    @inject(TenantStore) private readonly store: TenantStore,
    @inject(TenantResolver) private readonly resolver: TenantResolver,
    @inject(LOGGER) private readonly logger: Logger,
    @inject(MoveLeftovers) private readonly leftovers: MoveLeftovers,
  ) {}

  async move(slug: string, to: string, options: MoveOptions = {}): Promise<MoveReport> {
    const say: Step = options.onProgress ?? ((l) => this.logger.info(l));
    const id = typeof slug === 'string' ? await this.store.findIdBySlug(slug) : null;
    const tenant = id === null ? null : await this.store.load(id);
    if (!tenant) throw new ApiError(404, `tenant ${slug} not found`);
    if (typeof to !== 'string' || !this.clusters.has(to))
      throw ApiError.malformed('to', `unknown cluster "${to}" (declared: ${this.clusters.names.join(', ')})`);
    const from = tenant.cluster ?? MAIN_CLUSTER;
    if (from === to) throw new ApiError(409, `tenant ${slug} is already on cluster ${to}`);

    // one move per tenant at a time, whichever process runs it; a crashed mover's lock goes with its connection
    const guard = this.client(MAIN_CLUSTER);
    await guard.connect();
    try {
      const { rows } = await guard.query('select pg_try_advisory_lock(hashtext($1)) as ok', [`tenant-move:${tenant.id}`]);
      if (!rows[0].ok) throw new ApiError(409, `a move of tenant ${slug} is already running`);
      // what earlier movers left (a killed one's triggers, partial or old copies), this tenant's included
      await guard.query('select pg_advisory_unlock(hashtext($1))', [`tenant-move:${tenant.id}`]);
      const swept = await this.leftovers.sweep(0).catch((err: Error) => {
        this.logger.warn({ err: err.message }, 'move: sweeping earlier leftovers failed; the workers try again');
        return [] as string[];
      });
      for (const line of swept) say(line);
      const { rows: again } = await guard.query('select pg_try_advisory_lock(hashtext($1)) as ok', [`tenant-move:${tenant.id}`]);
      if (!again[0].ok) throw new ApiError(409, `a move of tenant ${slug} is already running`);
      const [row] = await this.moves().insert({ tenant_id: tenant.id, from_cluster: from, to_cluster: to, state: 'copying' }).returning('id');
      try {
        const report = await this.run(tenant, from, to, row.id, say, options);
        // 'done' only once the old copy is gone; otherwise the row stays 'switched' for the sweeper
        if (report.oldCopyDropped) await this.moves().where({ id: row.id }).update({ state: 'done', finished_at: this.knex.fn.now() });
        return report;
      } catch (err) {
        // 'failed' records the leftovers (triggers on `from`, a partial copy on `to`) until they are removed
        const cleaned = (err as { cleanedUp?: boolean }).cleanedUp === true;
        await this.moves()
          .where({ id: row.id })
          .update({ state: cleaned ? 'rolled_back' : 'failed', finished_at: this.knex.fn.now(), error: (err as Error).message.slice(0, 2000) })
          .catch(() => {});
        throw err;
      }
    } finally {
      await guard.end().catch(() => {});
    }
  }

  private moves() {
    return this.knex.withSchema(PlatformDb.SCHEMA).table('tenant_moves');
  }

  private client(cluster: string): Client {
    return new Client({ connectionString: this.clusters.url(cluster), options: '-c search_path= -c TimeZone=UTC -c statement_timeout=0' });
  }

  private async run(tenant: Tenant, from: string, to: string, moveId: number, say: Step, o: MoveOptions): Promise<MoveReport> {
    const started = Date.now();
    const schema = tenant.schema;
    const src = this.client(from);
    const dst = this.client(to);
    await Promise.all([src.connect(), dst.connect()]);
    let tables: CatalogTable[] = [];
    let switched = false;
    let fenceMustStay = false;
    try {
      // rows go in as they were: no trigger or foreign key may act on the copy
      await dst.query('set session_replication_role = replica').catch((err: Error) => {
        throw new ApiError(
          409,
          `cluster ${to}: the database role may not set session_replication_role (${err.message}); a superuser, or GRANT SET ON PARAMETER session_replication_role, is needed`,
        );
      });
      await installMoveHelpers(src);
      tables = await catalogTables(this.raw(src, from), schema);
      // a move that died earlier may have left its triggers here and a copy on the target
      await removeMoveTriggers(src, schema, tables);
      await this.clusters.admin(to).raw('drop schema if exists ?? cascade', [schema]);

      await withTableLocks(src, schema, tables, 'share row exclusive', o.lockDeadlineMs ?? 10_000, () => src.query(captureTriggerSql(src, schema, tables)));
      say(`${tenant.slug}: capturing writes on ${from}; copying ${tables.length} tables to ${to}`);
      let rows = 0;
      await src.query('begin isolation level repeatable read read only');
      try {
        const applied = (await src.query(`select name from ${src.escapeIdentifier(schema)}.schema_migrations`)).rows.map((r: { name: string }) => r.name);
        const known = tenantMigrations.filter((m) => applied.includes(m.name));
        if (known.length !== applied.length) throw new Error(`schema ${schema} has migrations this server does not know; upgrade it first`);
        await migrateSchema(this.clusters.admin(to), schema, known);
        const created = await catalogTables(this.clusters.admin(to), schema);
        if (created.map((t) => t.name).join() !== tables.map((t) => t.name).join())
          throw new Error(`schema ${schema} on ${to} does not have the tables of ${from} after migrating`);
        await dst.query(tables.map((t) => `delete from ${dst.escapeIdentifier(schema)}.${dst.escapeIdentifier(t.name)};`).join('\n'));
        for (const t of tables) {
          const n = await copyRows(src, dst, schema, t);
          rows += n;
          if (n) say(`${tenant.slug}: ${t.name}: ${n} rows`);
        }
        await src.query('commit');
      } catch (err) {
        await src.query('rollback').catch(() => {});
        throw err;
      }
      say(`${tenant.slug}: ${rows} rows copied in ${((Date.now() - started) / 1000).toFixed(1)} s; pausing writes`);

      // The pause: no write can commit on the source from here on; readers are not held up.
      const sequences = await catalogSequences(this.raw(src, from), schema);
      let pauseStart = 0;
      let changedRows = 0;
      await withTableLocks(src, schema, tables, 'exclusive', o.lockDeadlineMs ?? 10_000, async () => {
        pauseStart = Date.now();
        await this.moves().where({ id: moveId }).update({ state: 'paused' });
        const changed = await changedTables(src, schema);
        for (const t of tables) if (changed.has(t.name)) changedRows += await copyChanges(src, dst, schema, t, changed.get(t.name)!);
        await copySequences(src, dst, schema, sequences);
        for (const t of tables) {
          const [a, b] = await Promise.all([countRows(src, schema, t), countRows(dst, schema, t)]);
          if (a !== b) throw new Error(`verification failed: ${t.name} has ${a} rows on ${from} and ${b} on ${to}`);
        }
        say(`${tenant.slug}: ${changedRows} rows written meanwhile copied again; row counts of ${tables.length} tables verified`);
        // committed with the locks' release: a writer that waited meets the fence, not the old copy
        await src.query(fenceTriggerSql(src, schema, tables));
      });
      try {
        switched = await this.switchPlacement(tenant, from, to, moveId, rows + changedRows);
      } catch (err) {
        fenceMustStay = true;
        throw err;
      }
      if (!switched) throw new Error('the placement could not be switched; the tenant stays where it was');
      await this.resolver.publishChange(tenant.id);
      const writePauseMs = Date.now() - pauseStart;
      await this.moves().where({ id: moveId }).update({ write_pause_ms: writePauseMs });
      say(`${tenant.slug}: now on ${to}; writes paused ${writePauseMs} ms`);

      const wait = o.dropAfterMs ?? 15_000;
      if (wait > 0) say(`${tenant.slug}: dropping the old copy on ${from} in ${Math.round(wait / 1000)} s`);
      await new Promise((r) => setTimeout(r, wait));
      let oldCopyDropped = true;
      try {
        await src.query(`drop schema if exists ${src.escapeIdentifier(schema)} cascade`);
        await src.query('delete from tenant_moves.changes where schema_name = $1', [schema]);
        say(`${tenant.slug}: old copy dropped from ${from}`);
      } catch (err) {
        oldCopyDropped = false;
        say(`${tenant.slug}: could not drop the old copy on ${from} (${(err as Error).message}); it is fenced, and recorded: the sweeper drops it`);
      }
      return { slug: tenant.slug, from, to, tables: tables.length, rows, changedRows, writePauseMs, seconds: (Date.now() - started) / 1000, oldCopyDropped };
    } catch (err) {
      if (!switched && !fenceMustStay && (await this.undo(src, schema, tables, to, say))) Object.assign(err as object, { cleanedUp: true });
      throw err;
    } finally {
      await Promise.all([src.end().catch(() => {}), dst.end().catch(() => {})]);
    }
  }

  /**
   * The switch, in the platform database. When its outcome is unknown (the connection broke at
   * commit), the placement is read again: the fence stays up unless it is certain the tenant is
   * still on the source, since a write accepted there after a switch would be lost.
   */
  private async switchPlacement(tenant: Tenant, from: string, to: string, moveId: number, rows: number): Promise<boolean> {
    try {
      await this.knex.transaction(async (trx) => {
        const n = await trx
          .withSchema(PlatformDb.SCHEMA)
          .table('tenants')
          .where({ id: tenant.id, cluster: from })
          .update({ cluster: to, updated_at: trx.fn.now() });
        if (n !== 1) throw new Error(`tenant ${tenant.slug} is no longer on ${from}`);
        await trx.withSchema(PlatformDb.SCHEMA).table('tenant_moves').where({ id: moveId }).update({ state: 'switched', rows_copied: rows });
      });
      return true;
    } catch (err) {
      for (let i = 0; i < 5; i++) {
        const row = await this.knex
          .withSchema(PlatformDb.SCHEMA)
          .table('tenants')
          .where({ id: tenant.id })
          .first('cluster')
          .catch(() => undefined);
        if (row?.cluster === to) return true;
        if (row?.cluster === from) return false;
        await new Promise((r) => setTimeout(r, 1000));
      }
      throw new Error(
        `could not tell whether tenant ${tenant.slug} was switched to ${to} (${(err as Error).message}); its writes stay paused: run the move again`,
        { cause: err },
      );
    }
  }

  /** Back to where it was: capture and fence off the source, the partial copy dropped. */
  private async undo(src: Client, schema: string, tables: CatalogTable[], to: string, say: Step): Promise<boolean> {
    try {
      await removeMoveTriggers(src, schema, tables);
      await this.clusters.admin(to).raw('drop schema if exists ?? cascade', [schema]);
      say(`${schema}: move abandoned; the tenant stays where it was`);
      return true;
    } catch (err) {
      this.logger.error({ err: (err as Error).message, schema }, 'move: could not clean up after a failed move; recorded as failed: the sweeper cleans up');
      return false;
    }
  }

  /** catalogTables and catalogSequences take a knex-like raw(); this runs them on a pg client. */
  private raw(c: Client, cluster: string): Knex {
    const compile = this.clusters.admin(cluster);
    return {
      raw: (sql: string, bindings: readonly unknown[]) => {
        const native = compile
          .raw(sql, bindings as any)
          .toSQL()
          .toNative();
        return c.query(native.sql, native.bindings as unknown[]);
      },
    } as unknown as Knex;
  }
}
