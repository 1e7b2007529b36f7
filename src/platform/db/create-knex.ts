import knex, { type Knex } from 'knex';
import type { Logger } from 'pino';
import type { Env } from '../config/env';
import { boundNamedStatements } from './named-statements';

/**
 * A pool (the platform pool, or one tenant connection group). Every physical connection starts with an empty
 * search_path, so a query that names a table without its schema fails loudly instead
 * of reading whichever schema some earlier request left behind.
 */
export function createKnex(
  env: Pick<Env, 'DATABASE_POOL_MAX' | 'DATABASE_CONNECTION_LIFETIME_SECONDS'>,
  databaseUrl: string,
  // Tenant groups only: a statement past it frees the connection for the group's other
  // tenants. The platform pool runs migrations, import and export, which may rightly take longer.
  statementTimeoutMs?: number,
  logger?: Logger,
  /** tenant groups: recycles a connection once it has served too many tenants (TenantBudget.keep) */
  validate?: (connection: object) => boolean,
): Knex {
  return boundNamedStatements(
    knex({
      // knex's own warnings (a connection lost, an acquire that failed) go to our log, not the console
      ...(logger ? { log: knexLog(logger) } : {}),
      client: 'pg',
      connection: { connectionString: databaseUrl, options: '-c search_path=', ...(statementTimeoutMs ? { statement_timeout: statementTimeoutMs } : {}) },
      pool: {
        min: 0,
        max: env.DATABASE_POOL_MAX,
        // Each connection caches the catalog of every schema it touched; with many tenants
        // that grows without bound, so connections are recycled.
        maxConnectionLifetimeMillis: env.DATABASE_CONNECTION_LIFETIME_SECONDS * 1000,
        maxConnectionLifetimeJitterMillis: 30_000,
        idleTimeoutMillis: 30_000,
        ...(validate ? { validate } : {}),
      },
      acquireConnectionTimeout: 10_000,
    }),
  );
}

function knexLog(logger: Logger) {
  const log = logger.child({ component: 'knex' });
  return {
    warn: (m: unknown) => log.warn(String(m)),
    error: (m: unknown) => log.error(String(m)),
    deprecate: (m: unknown) => log.debug(String(m)),
    debug: (m: unknown) => log.debug(String(m)),
  };
}
