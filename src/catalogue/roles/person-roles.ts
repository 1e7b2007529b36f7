import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import { missingIds, type TenantDb } from '../../platform/tenant-scope/tenant-db';

/**
 * The roles persons hold (person_roles). Got by `tx.get(PersonRolesStore)` it reads and writes in
 * that transaction, so a change and what is read around it (the roles before, for the audit) commit together.
 */
@injectable()
export class PersonRolesStore {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  async ids(personId: number): Promise<number[]> {
    return (await this.db.table('person_roles').where({ person_id: personId }).select('role_id')).map((r: { role_id: number }) => r.role_id);
  }

  /** The roles of each of `personIds` (an import's batch), in one statement; a person without roles is absent. */
  async idsOf(personIds: readonly number[]): Promise<Map<number, number[]>> {
    const held = new Map<number, number[]>();
    if (personIds.length === 0) return held;
    const rows: { person_id: number; role_id: number }[] = await this.db
      .table('person_roles')
      .whereIn('person_id', [...new Set(personIds)])
      .select('person_id', 'role_id');
    for (const r of rows) held.set(r.person_id, [...(held.get(r.person_id) ?? []), r.role_id]);
    return held;
  }

  async replace(personId: number, roleIds: number[]): Promise<void> {
    await this.db.table('person_roles').where({ person_id: personId }).delete();
    if (roleIds.length) await this.db.table('person_roles').insert(roleIds.map((role_id) => ({ person_id: personId, role_id })));
  }

  async add(personId: number, roleId: number): Promise<void> {
    await this.db.table('person_roles').insert({ person_id: personId, role_id: roleId }).onConflict(['person_id', 'role_id']).ignore();
  }

  /** Returns how many were held. */
  remove(personId: number, roleIds: number[]): Promise<number> {
    return this.db.table('person_roles').where({ person_id: personId }).whereIn('role_id', roleIds).delete();
  }

  /** Ids of the persons holding the role, in id order (SCIM Group members). */
  async holders(roleId: number): Promise<number[]> {
    return (await this.db.table('person_roles').where({ role_id: roleId }).orderBy('person_id').select('person_id')).map(
      (r: { person_id: number }) => r.person_id,
    );
  }

  /** Ids among `ids` that are no role. */
  missing(ids: number[]): Promise<number[]> {
    return missingIds(this.db, 'roles', ids);
  }
}
