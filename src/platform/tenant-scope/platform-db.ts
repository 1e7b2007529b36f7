import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import { KNEX } from '../tokens';

/**
 * Control-plane data (tenants, hosts, config items). Deliberately separate from
 * TenantDb: code that crosses tenants says so by depending on this.
 */
@injectable()
export class PlatformDb {
  static readonly SCHEMA = 'platform';
  constructor(@inject(KNEX) readonly knex: Knex) {}

  table<TRecord extends object = any>(name: string): Knex.QueryBuilder<TRecord, any> {
    return this.knex.withSchema(PlatformDb.SCHEMA).table(name);
  }

  ref(name: string): string {
    return `${PlatformDb.SCHEMA}.${name}`;
  }
}
