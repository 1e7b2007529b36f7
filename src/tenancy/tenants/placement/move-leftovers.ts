import { inject, injectable } from 'tsyringe';
import { Client } from 'pg';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { KNEX, LOGGER } from '../../../platform/tokens';
import { PlatformDb } from '../../../platform/tenant-scope/platform-db';
import { CLUSTERS, MAIN_CLUSTER, type Clusters } from '../../../platform/clusters/clusters';
import type { BackgroundWorker } from '../../../platform/queue/worker-runtime';
import { CAPTURE_STATEMENT_TRIGGER, CAPTURE_TRIGGER, FENCE_TRIGGER } from './move-triggers';

/**
 * What a move leaves behind until it is cleaned up, as `platform.tenant_moves.state` records it:
 *   copying, paused, failed  capture (and maybe fence) triggers and change log rows on from_cluster,
 *                            a partial copy of the schema on to_cluster
 *   switched                 the old (fenced) copy of the schema on from_cluster
 *   done, rolled_back        nothing: cleaned up
 * The mover cleans up itself; a mover that was killed (or whose clean-up failed) leaves the row in
 * one of the first four states, and the sweeper (the workers, every minute; the next move; the
 * operator's `tenant sweep-moves`) finishes the job once no mover holds the tenant's move lock.
 * A schema is never dropped on the cluster the tenant is placed on.
 */
export const LEFTOVER_STATES = ['copying', 'paused', 'failed', 'switched'] as const;

interface MoveRow {
  id: number;
  tenant_id: number;
  from_cluster: string;
  to_cluster: string;
  state: (typeof LEFTOVER_STATES)[number];
  schema: string;
  cluster: string;
}

@injectable()
export class MoveLeftovers {
  constructor(
    @inject(KNEX) private readonly knex: Knex,
    @inject(CLUSTERS) private readonly clusters: Clusters,
    @inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Cleans up after every move that no mover is running any more; `graceMs`: a switched move's old copy stays this long. Answers what was done. */
  async sweep(graceMs = 60_000): Promise<string[]> {
    const rows: MoveRow[] = await this.knex
      .withSchema(PlatformDb.SCHEMA)
      .from('tenant_moves as m')
      .join('tenants as t', 't.id', 'm.tenant_id')
      .whereIn('m.state', [...LEFTOVER_STATES])
      .where((w) => void w.whereNot('m.state', 'switched').orWhere('m.started_at', '<', new Date(Date.now() - graceMs)))
      .orderBy('m.id')
      .select('m.id', 'm.tenant_id', 'm.from_cluster', 'm.to_cluster', 'm.state', 't.schema_name as schema', 't.cluster');
    const done: string[] = [];
    for (const row of rows) {
      const guard = new Client({ connectionString: this.clusters.url(MAIN_CLUSTER) });
      await guard.connect();
      try {
        // the mover's own lock: a running move is left alone
        const { rows: lock } = await guard.query('select pg_try_advisory_lock(hashtext($1)) as ok', [`tenant-move:${row.tenant_id}`]);
        if (!lock[0].ok) continue;
        const line = await this.clean(row);
        if (line) done.push(line);
      } catch (err) {
        this.logger.warn({ err: (err as Error).message, move: row.id }, 'move leftovers: could not clean up; trying again later');
      } finally {
        await guard.end().catch(() => {});
      }
    }
    return done;
  }

  /**
   * For a deleted tenant: its schema and change log on every cluster other than its own, where a
   * move may have left a copy. `clusters`: those its moves named (read before its rows went).
   */
  async purgeTenant(schema: string, placedOn: string, clusters: string[]): Promise<string[]> {
    const out: string[] = [];
    for (const cluster of new Set(clusters)) {
      if (cluster === placedOn || !this.clusters.has(cluster)) continue;
      await this.dropCopy(cluster, schema);
      out.push(`${cluster}: ${schema} dropped`);
    }
    for (const cluster of new Set([placedOn, ...clusters])) {
      if (this.clusters.has(cluster)) await this.forgetChanges(cluster, schema);
    }
    return out;
  }

  private async clean(row: MoveRow): Promise<string | null> {
    const placedOn = row.cluster ?? MAIN_CLUSTER;
    // 'switched', or a move that failed at the switch without knowing its outcome ('failed' with the
    // tenant placed on to_cluster after all): the tenant went to to_cluster; the fenced old copy on from_cluster goes
    if (row.state === 'switched' || (placedOn === row.to_cluster && placedOn !== row.from_cluster)) {
      if (placedOn === row.from_cluster || !this.clusters.has(row.from_cluster)) return null;
      await this.dropCopy(row.from_cluster, row.schema);
      await this.forgetChanges(row.from_cluster, row.schema);
      await this.mark(row.id, 'done');
      return `move ${row.id}: old copy of ${row.schema} dropped on ${row.from_cluster}`;
    }
    // never switched: the tenant serves from from_cluster; its triggers and the partial copy go
    if (placedOn !== row.from_cluster) return null;
    if (this.clusters.has(row.from_cluster)) await this.removeTriggers(row.from_cluster, row.schema);
    if (row.to_cluster !== placedOn && this.clusters.has(row.to_cluster)) await this.dropCopy(row.to_cluster, row.schema);
    await this.mark(row.id, 'rolled_back');
    return `move ${row.id}: triggers on ${row.from_cluster} and the partial copy on ${row.to_cluster} of ${row.schema} removed`;
  }

  private mark(id: number, state: 'done' | 'rolled_back') {
    return this.knex.withSchema(PlatformDb.SCHEMA).table('tenant_moves').where({ id }).update({ state, finished_at: this.knex.fn.now() });
  }

  private async dropCopy(cluster: string, schema: string): Promise<void> {
    await this.clusters.admin(cluster).raw('drop schema if exists ?? cascade', [schema]);
  }

  private async forgetChanges(cluster: string, schema: string): Promise<void> {
    const db = this.clusters.admin(cluster);
    const log = await db.raw("select to_regclass('tenant_moves.changes') as r");
    if (log.rows[0].r) await db.raw('delete from tenant_moves.changes where schema_name = ?', [schema]);
  }

  /** Drops the capture and fence triggers from every table of the schema (whatever tables it has now). */
  private async removeTriggers(cluster: string, schema: string): Promise<void> {
    const db = this.clusters.admin(cluster);
    const { rows } = await db.raw(
      `select c.relname as table, g.tgname as trigger from pg_trigger g join pg_class c on c.oid = g.tgrelid join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = ? and g.tgname in (?, ?, ?)`,
      [schema, CAPTURE_TRIGGER, CAPTURE_STATEMENT_TRIGGER, FENCE_TRIGGER],
    );
    for (const r of rows as { table: string; trigger: string }[]) await db.raw('drop trigger if exists ?? on ??.??', [r.trigger, schema, r.table]);
    await this.forgetChanges(cluster, schema);
  }
}

const EVERY_MS = 60_000;

/** The workers sweep move leftovers every minute (a killed mover's triggers, partial copy or old copy). */
@injectable()
export class MoveSweeper implements BackgroundWorker {
  readonly name = 'move-leftovers';
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    @inject(MoveLeftovers) private readonly leftovers: MoveLeftovers,
    @inject(LOGGER) private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.leftovers
        .sweep()
        .then((lines) => lines.forEach((l) => this.logger.info(l)))
        .catch((err) => this.logger.warn({ err: (err as Error).message }, 'move leftovers: sweep failed'))
        .finally(() => (this.running = null));
    }, EVERY_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}
