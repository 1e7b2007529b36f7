import type { Paging } from '../../platform/http/param-types';
import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';

export interface ApiClientRow {
  id: number;
  client_id: string;
  name: string;
  scopes: string[];
  run_as_person_id: number | null;
  /** SCIM: the organisation of persons whose department names none (migration 260); null: none. */
  scim_default_organisation_id: number | null;
  secret_hash: string;
  secret_version: number;
  secret_rotated_at: Date | null;
  created_by: number;
  created_at: Date;
  last_used_at: Date | null;
}

/** The tenant's API clients (only TENANT_DB, so only this tenant's). */
@injectable()
export class ApiClientsRepository {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  list(page: Paging): Promise<ApiClientRow[]> {
    return this.db.table('api_clients').orderBy('id').limit(page.limit).offset(page.offset);
  }

  byClientId(clientId: string): Promise<ApiClientRow | undefined> {
    return this.db.table('api_clients').where({ client_id: clientId }).first();
  }

  /** The row locked for the caller's transaction (a repository from `tx.get`). */
  lockByClientId(clientId: string): Promise<ApiClientRow | undefined> {
    return this.db.table('api_clients').where({ client_id: clientId }).forUpdate().first();
  }

  async insert(
    row: Pick<ApiClientRow, 'client_id' | 'name' | 'scopes' | 'run_as_person_id' | 'secret_hash' | 'created_by'> &
      Partial<Pick<ApiClientRow, 'scim_default_organisation_id'>>,
  ): Promise<ApiClientRow> {
    const [r] = await this.db.table('api_clients').insert(row).returning('*');
    return r;
  }

  async delete(clientId: string): Promise<boolean> {
    return (await this.db.table('api_clients').where({ client_id: clientId }).delete()) > 0;
  }

  /** A new secret: its version grows, so tokens issued under the old one end at once. */
  async rotateSecret(clientId: string, secretHash: string): Promise<ApiClientRow | undefined> {
    const [r] = await this.db
      .table('api_clients')
      .where({ client_id: clientId })
      .update({ secret_hash: secretHash, secret_version: this.db.raw('secret_version + 1'), secret_rotated_at: this.db.fn.now() })
      .returning('*');
    return r;
  }

  /** Records a use, at most once a minute per client (the Bearer scheme calls it on every request). */
  async touch(clientId: string): Promise<void> {
    await this.db
      .table('api_clients')
      .where({ client_id: clientId })
      .andWhere((q) => void q.whereNull('last_used_at').orWhere('last_used_at', '<', this.db.raw(`now() - interval '1 minute'`)))
      .update({ last_used_at: this.db.fn.now() });
  }
}
