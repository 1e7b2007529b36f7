import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { Paging } from '../../platform/http/param-types';

export interface RoleRow {
  id: number;
  name: string;
  description: string | null;
  meta_type: string;
  mandatory?: boolean;
}

export interface RoleFilter {
  term?: string;
  metaTypes?: string[];
  personId?: number;
  competenceId?: number;
  requirement?: 'mandatory' | 'optional';
  /** Roles made available (organisation_roles) on any of these organisations: a sub-query of organisation ids. */
  availableOn?: Knex.QueryBuilder | Knex.Raw;
  /** Roles with a requirement on a competence in these groups. */
  groupIds?: number[];
}

export const presentRole = (r: RoleRow) => ({
  role_id: r.id,
  name: r.name,
  meta_type: r.meta_type,
  description: r.description,
  ...(r.mandatory === undefined ? {} : { mandatory: r.mandatory }),
});

@injectable()
export class RolesRepository {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  async list(f: RoleFilter, page: Paging): Promise<RoleRow[]> {
    const q = this.db.table('roles as r').select('r.id', 'r.name', 'r.description', 'r.meta_type');
    if (f.term) q.whereILike('r.name', `%${f.term.replace(/[\\%_]/g, (m) => `\\${m}`)}%`);
    if (f.metaTypes) q.whereIn('r.meta_type', f.metaTypes);
    if (f.personId !== undefined) q.whereIn('r.id', this.db.table('person_roles').select('role_id').where('person_id', f.personId));
    if (f.competenceId !== undefined) {
      q.join('requirements as q', 'q.role_id', 'r.id').where('q.competence_id', f.competenceId).select('q.mandatory');
      if (f.requirement) q.where('q.mandatory', f.requirement === 'mandatory');
    }
    if (f.availableOn) {
      q.whereIn(
        'r.id',
        this.db
          .table('organisation_roles')
          .select('role_id')
          .whereIn('organisation_id', f.availableOn as any),
      );
    }
    if (f.groupIds) {
      q.whereIn(
        'r.id',
        this.db
          .table('requirements as q2')
          .join('competences as c', 'c.id', 'q2.competence_id')
          .whereIn('c.competence_group_id', f.groupIds)
          .select('q2.role_id'),
      );
    }
    return q.orderBy('r.name').orderBy('r.id').limit(page.limit).offset(page.offset);
  }

  async byId(id: number): Promise<RoleRow | undefined> {
    return this.db.table('roles').where({ id }).select('id', 'name', 'description', 'meta_type').first();
  }

  async byIds(ids: number[]): Promise<RoleRow[]> {
    return this.db.table('roles').whereIn('id', ids).select('id', 'name', 'description', 'meta_type');
  }

  async requirementsOf(roleId: number) {
    return this.db
      .table('requirements as q')
      .join('competences as c', 'c.id', 'q.competence_id')
      .where('q.role_id', roleId)
      .select('c.id as competence_id', 'c.title', 'c.type', 'q.mandatory')
      .orderBy('c.id');
  }

  /** "Admin for the role" of the spec (role_admins). */
  async administers(personId: number, roleId: number): Promise<boolean> {
    return !!(await this.db.table('role_admins').where({ person_id: personId, role_id: roleId }).first());
  }
}
