import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import { TENANT_DB } from '../../platform/tokens';
import { missingIds, type TenantDb } from '../../platform/tenancy/tenant-db';
import type { Transaction } from '../../platform/tenancy/unit-of-work';
import type { HeldRole, PersonRoles } from '../../people';

/** The roles persons hold (person_roles), as the people module asks for them (PERSON_ROLES). */
@injectable()
export class PersonRolesStore implements PersonRoles {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  heldColumn(db: TenantDb): Knex.Raw {
    return db.raw(
      `coalesce((select json_agg(json_build_object('id', r.id, 'name', r.name, 'meta_type', r.meta_type) order by r.id)
         from ?? pr join ?? r on r.id = pr.role_id where pr.person_id = p.id), '[]'::json) as roles`,
      [db.ref('person_roles'), db.ref('roles')],
    );
  }

  held(personId: number): Promise<HeldRole[]> {
    return this.db.table('person_roles as pr').join('roles as r', 'r.id', 'pr.role_id')
      .where('pr.person_id', personId).select('r.id', 'r.name', 'r.meta_type').orderBy('r.id');
  }

  async ids(db: TenantDb, personId: number): Promise<number[]> {
    return (await db.table('person_roles').where({ person_id: personId }).select('role_id')).map((r: { role_id: number }) => r.role_id);
  }

  async replace(tx: Transaction, personId: number, roleIds: number[]): Promise<void> {
    await tx.get(TENANT_DB).table('person_roles').where({ person_id: personId }).delete();
    if (roleIds.length) await tx.get(TENANT_DB).table('person_roles').insert(roleIds.map((role_id) => ({ person_id: personId, role_id })));
  }

  async add(tx: Transaction, personId: number, roleId: number): Promise<void> {
    await tx.get(TENANT_DB).table('person_roles').insert({ person_id: personId, role_id: roleId }).onConflict(['person_id', 'role_id']).ignore();
  }

  remove(tx: Transaction, personId: number, roleIds: number[]): Promise<number> {
    return tx.get(TENANT_DB).table('person_roles').where({ person_id: personId }).whereIn('role_id', roleIds).delete();
  }

  missing(ids: number[]): Promise<number[]> {
    return missingIds(this.db, 'roles', ids);
  }

  holdsAny(db: TenantDb, roleIds: number[]): Knex.QueryBuilder {
    return db.table('person_roles as pr').select(1).whereRaw('pr.person_id = p.id').whereIn('pr.role_id', roleIds);
  }
}
