import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';

export interface ScimGroupLink {
  role_id: number;
  external_id: string | null;
  created_by_scim: boolean;
}

/**
 * What SCIM resources hold beyond persons and roles (migration 260): a person's enterprise
 * `manager`, a group's `externalId` and whether SCIM created its role. Got by `tx.get(ScimLinks)` it
 * writes in that transaction.
 */
@injectable()
export class ScimLinks {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  async managers(personIds: readonly number[]): Promise<Map<number, string>> {
    const out = new Map<number, string>();
    if (personIds.length === 0) return out;
    const rows: { person_id: number; manager: string | null }[] = await this.db
      .table('scim_users')
      .whereIn('person_id', [...personIds])
      .select('person_id', 'manager');
    for (const r of rows) if (r.manager !== null) out.set(r.person_id, r.manager);
    return out;
  }

  async setManager(personId: number, manager: string | null): Promise<void> {
    await this.db.table('scim_users').insert({ person_id: personId, manager }).onConflict('person_id').merge(['manager']);
  }

  async groups(roleIds: readonly number[]): Promise<Map<number, ScimGroupLink>> {
    const out = new Map<number, ScimGroupLink>();
    if (roleIds.length === 0) return out;
    const rows: ScimGroupLink[] = await this.db
      .table('scim_groups')
      .whereIn('role_id', [...roleIds])
      .select('role_id', 'external_id', 'created_by_scim');
    for (const r of rows) out.set(r.role_id, r);
    return out;
  }

  /** Role ids whose group externalId is `externalId` (a Groups filter). */
  async rolesWithExternalId(externalId: string): Promise<number[]> {
    return (await this.db.table('scim_groups').where({ external_id: externalId }).select('role_id')).map((r: { role_id: number }) => r.role_id);
  }

  async setGroup(roleId: number, link: { external_id?: string | null; created_by_scim?: boolean }): Promise<void> {
    const row = { role_id: roleId, ...link };
    const merge = Object.keys(link);
    const q = this.db.table('scim_groups').insert(row).onConflict('role_id');
    await (merge.length ? q.merge(merge) : q.ignore());
  }

  async dropGroup(roleId: number): Promise<void> {
    await this.db.table('scim_groups').where({ role_id: roleId }).delete();
  }
}
