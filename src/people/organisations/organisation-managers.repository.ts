import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';

/** Who manages which organisations (organisation_managers), with the subtrees below them. */
@injectable()
export class OrganisationManagersRepository {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  /** Organisation ids in the subtrees the person manages (empty for non-managers). */
  async managedBy(personId: number): Promise<Set<number>> {
    const r = await this.db.raw<{ rows: { id: number }[] }>(
      `with recursive sub(id) as (
         select organisation_id from ?? where person_id = ?
         union
         select o.id from ?? o join sub on o.parent_id = sub.id)
       select id from sub`,
      [this.db.ref('organisation_managers'), personId, this.db.ref('organisations')],
    );
    return new Set(r.rows.map((row) => row.id));
  }
}
