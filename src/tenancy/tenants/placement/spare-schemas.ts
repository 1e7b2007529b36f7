import { randomBytes } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { ENV, LOGGER } from '../../../platform/tokens';
import type { Env } from '../../../platform/config/env';
import { CLUSTERS, type Clusters } from '../../../platform/clusters/clusters';
import { listSpares, SPARE_PREFIX } from '../../../platform/clusters/spare-catalog';
import { migrateSchema } from '../../../platform/migrations/migration-runner';
import { NotReplayableError, recordMigrations, replayMigrations, type MigrationScript } from '../../../platform/migrations/recorded-migrations';
import { tenantMigrations } from '../../../../migrations/tenant';

/** Candidates looked at per claim; more than the number of creators that race for one. */
const CANDIDATES = 32;

/** A spare while its migrations are recorded: not yet `spare_`, so nobody claims it half-made. */
const TEMPLATE_PREFIX = 'sparetpl_';

/**
 * Recorded migration scripts, per process, by cluster URL and list of migration names: a new
 * migration list (a deploy) records again. null: the migrations cannot be replayed (spares are
 * then migrated one by one).
 */
const scripts = new Map<string, Promise<MigrationScript | null>>();

export class SchemaTakenError extends Error {}

/** A new tenant's schema must not exist yet on its cluster: an old one is refused, never reused. */
export async function assertSchemaFree(trx: Knex.Transaction, schema: string): Promise<void> {
  const exists = await trx.raw('select 1 from pg_namespace where nspname = ?', [schema]);
  if (exists.rows.length) {
    throw new SchemaTakenError(
      `schema ${schema} already exists on this cluster (left over by a failed create, or a moved tenant's old copy not yet dropped); drop it first`,
    );
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
    await migrateSchema(trx, schema, tenantMigrations);
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
    if ((await listSpares(admin)).length >= target) return 0;
    const recorded = await this.script(cluster);
    const script = recorded.script;
    let made = recorded.made;
    const missing = Math.max(0, target - (await listSpares(admin)).length) + made;
    const next = async (): Promise<void> => {
      while (made + running < missing) {
        running++;
        try {
          const name = `${SPARE_PREFIX}${randomBytes(8).toString('hex')}`;
          if (script) await replayMigrations(admin, script, name);
          else await migrateSchema(admin, name, tenantMigrations);
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

  /**
   * The recorded script of the current tenant migrations on this cluster. The first call in the
   * process records it on a template and checks it on a first replay (recorded-migrations.ts);
   * both then become spares (`made`: how many this call made).
   */
  private async script(cluster: string): Promise<{ script: MigrationScript | null; made: number }> {
    const key = `${this.clusters.url(cluster)}\n${tenantMigrations.map((m) => m.name).join(',')}`;
    const cached = scripts.get(key);
    if (cached) return { script: await cached, made: 0 };
    const recording = this.record(cluster);
    // A recording that fails (the cluster restarting, say) is forgotten before the caller hears
    // of it, so the next top-up records again.
    const shared: Promise<MigrationScript | null> = recording.then(
      (r) => r.script,
      (err) => {
        if (scripts.get(key) === shared) scripts.delete(key);
        throw err;
      },
    );
    // The caller gets the error from `recording`; this copy, kept for concurrent callers, needs a
    // handler of its own: unhandled, its rejection would end the process (it did end the worker
    // when PostgreSQL restarted during its first top-up).
    shared.catch(() => {});
    scripts.set(key, shared);
    return recording;
  }

  private async record(cluster: string): Promise<{ script: MigrationScript | null; made: number }> {
    const admin = this.clusters.admin(cluster);
    const hex = [randomBytes(8).toString('hex'), randomBytes(8).toString('hex')];
    const [template, probe] = hex.map((h) => `${TEMPLATE_PREFIX}${h}`);
    try {
      const script = await recordMigrations(admin, template, probe, tenantMigrations);
      for (let i = 0; i < 2; i++) await admin.raw('alter schema ?? rename to ??', [`${TEMPLATE_PREFIX}${hex[i]}`, `${SPARE_PREFIX}${hex[i]}`]);
      return { script, made: 2 };
    } catch (err) {
      for (const s of [template, probe]) await admin.raw('drop schema if exists ?? cascade', [s]).catch(() => {});
      if (!(err instanceof NotReplayableError)) throw err;
      this.logger.warn({ err: err.message, cluster }, 'tenant migrations cannot be replayed; spare schemas are migrated one by one');
      return { script: null, made: 0 };
    }
  }
}
