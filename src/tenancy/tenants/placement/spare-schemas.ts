import { randomBytes } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { ENV, LOGGER } from '../../../platform/tokens';
import type { Env } from '../../../platform/config/env';
import { CLUSTERS, type Clusters } from '../../../platform/clusters/clusters';
import { listSpares, SPARE_PREFIX } from '../../../platform/clusters/spare-catalog';
import { migrateSchema } from '../../../platform/migrations/migration-runner';
import { tenantMigrations } from '../../../../migrations/tenant';

/** Candidates looked at per claim; more than the number of creators that race for one. */
const CANDIDATES = 32;

export class SchemaTakenError extends Error {}

/** A new tenant's schema must not exist yet on its cluster: an old one is refused, never reused. */
export async function assertSchemaFree(trx: Knex.Transaction, schema: string): Promise<void> {
  const exists = await trx.raw('select 1 from pg_namespace where nspname = ?', [schema]);
  if (exists.rows.length) {
    throw new SchemaTakenError(`schema ${schema} already exists on this cluster (left over by a failed create, or a moved tenant's old copy not yet dropped); drop it first`);
  }
}

/**
 * Pre-migrated spare schemas (spare_<hex>) on every cluster. Creating a tenant renames one to
 * the tenant's schema in the creating transaction (ALTER SCHEMA ... RENAME is a catalog update:
 * about a millisecond, where running every migration on a fresh schema is 100-150 ms of DDL),
 * then runs the migration runner over it, which finds it current and applies nothing (or what
 * a spare made before the last deploy lacks). Concurrent creators never take the same spare: each
 * takes a transaction-level advisory lock on the spare's name first and re-reads pg_namespace.
 */
@injectable()
export class SpareSchemas {
  private readonly topping = new Map<string, Promise<number>>();
  /** While above 0 (a bulk provisioning runs), claims do not start top-ups that would compete with it. */
  private held = 0;

  constructor(
    @inject(CLUSTERS) private readonly clusters: Clusters,
    @inject(ENV) private readonly env: Env,
    @inject(LOGGER) private readonly logger: Logger,
  ) {}

  /**
   * Makes `schema` exist, migrated, in `trx` (a transaction on the tenant's cluster): a spare
   * renamed when there is one, else a new schema migrated. A schema of that name that already
   * exists (left over by a failed create on another cluster, or a moved tenant's old copy not yet
   * dropped) is refused rather than reused. Returns whether a spare was used.
   */
  async provide(trx: Knex.Transaction, schema: string): Promise<boolean> {
    await assertSchemaFree(trx, schema);
    const claimed = await this.claim(trx, schema);
    if (!claimed) await trx.raw('create schema ??', [schema]);
    await migrateSchema(trx as unknown as Knex, schema, tenantMigrations);
    return claimed;
  }

  private async claim(trx: Knex.Transaction, schema: string): Promise<boolean> {
    for (const spare of await listSpares(trx, CANDIDATES)) {
      const locked = await trx.raw('select pg_try_advisory_xact_lock(hashtext(?)) as ok', [`spare:${spare}`]);
      if (!locked.rows[0].ok) continue;
      // another creator may have renamed it and committed since the listing
      const still = await trx.raw('select 1 from pg_namespace where nspname = ?', [spare]);
      if (!still.rows.length) continue;
      await trx.raw('alter schema ?? rename to ??', [spare, schema]);
      return true;
    }
    return false;
  }

  /** Holds top-ups back until the returned function is called. */
  hold(): () => void {
    this.held++;
    let released = false;
    return () => {
      if (!released) this.held--;
      released = true;
    };
  }

  async count(cluster: string): Promise<number> {
    return (await listSpares(this.clusters.admin(cluster))).length;
  }

  /** Creates spares on the cluster until it has `target` (TENANT_SPARE_SCHEMAS by default); returns how many were made. */
  topUp(cluster: string, target = this.env.TENANT_SPARE_SCHEMAS, concurrency = 2, onProgress?: (made: number, missing: number) => void): Promise<number> {
    const running = this.topping.get(cluster);
    if (running) return running;
    const work = this.make(cluster, target, concurrency, onProgress).finally(() => this.topping.delete(cluster));
    this.topping.set(cluster, work);
    return work;
  }

  /** Tops up every cluster in the background (after a claim); failures are logged, not thrown. */
  topUpSoon(cluster: string): void {
    if (this.env.TENANT_SPARE_SCHEMAS === 0 || this.held > 0) return;
    this.topUp(cluster).catch((err) => this.logger.warn({ err: (err as Error).message, cluster }, 'could not top up spare schemas'));
  }

  private async make(cluster: string, target: number, concurrency: number, onProgress?: (made: number, missing: number) => void): Promise<number> {
    const admin = this.clusters.admin(cluster);
    const missing = Math.max(0, target - (await listSpares(admin)).length);
    let made = 0;
    const next = async (): Promise<void> => {
      while (made + running < missing) {
        running++;
        try {
          await migrateSchema(admin, `${SPARE_PREFIX}${randomBytes(8).toString('hex')}`, tenantMigrations);
          made++;
          if (onProgress && (made % 100 === 0 || made === missing)) onProgress(made, missing);
        } finally {
          running--;
        }
      }
    };
    let running = 0;
    await Promise.all(Array.from({ length: Math.max(1, concurrency) }, next));
    return made;
  }
}
