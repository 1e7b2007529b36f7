import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';

/** Organisations as other modules look them up: by id or by the id of an external system. */
@injectable()
export class OrganisationDirectory {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  find(id: number): Promise<{ id: number; name: string } | undefined> {
    return this.db.table('organisations').where({ id }).select('id', 'name').first();
  }

  async idByExternalId(externalId: string): Promise<number | undefined> {
    const row = await this.db.table('organisations').where('extern_organisation_id', externalId).select('id').first();
    return row?.id;
  }

  async idsByExternalIds(externalIds: string[]): Promise<number[]> {
    return (await this.db.table('organisations').whereIn('extern_organisation_id', externalIds).select('id')).map((r: { id: number }) => r.id);
  }
}
