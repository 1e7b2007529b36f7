import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import { UnitOfWork } from '../../platform/tenant-scope/unit-of-work';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import { AuditTrail } from '../../platform/audit/audit-trail';
import type { RoleRow } from '../roles/roles.repository';
import { referencesStillThere } from './concurrent-change';

export interface RoleData {
  name?: string;
  meta_type?: 'role' | 'specialrole' | 'position';
  description?: string | null;
}

const ROLE_COLUMNS = ['id', 'name', 'description', 'meta_type'] as const;

/**
 * Creating, changing and deleting roles and their requirements (superusers and superadmins,
 * decided by the routes). A role held by persons or made available on organisations (an
 * organisational function) is not deleted (409); its requirements and admins go with it. A
 * requirement names a top-level competence (modules, items and questions are parts of one).
 * Every change is audited (`role.*`, `requirement.changed|removed`) in its transaction; the
 * competence level and missing lists follow at once (the requirements table's trigger drops
 * the cached answers).
 */
@injectable()
export class RoleAuthoring {
  constructor(@inject(UnitOfWork) private readonly uow: UnitOfWork) {}

  async create(user: Principal, data: RoleData & { name: string }): Promise<RoleRow> {
    return this.uow.run(async (tx) => {
      const db = tx.get(TENANT_DB);
      const [row] = await db
        .table('roles')
        .insert({ meta_type: 'role', ...data })
        .returning([...ROLE_COLUMNS]);
      await tx.get(AuditTrail).record({ type: 'role.created', actor: user.userName, subject: String(row.id), details: { fields: Object.keys(data) } });
      return row;
    });
  }

  async update(user: Principal, id: number, data: RoleData): Promise<RoleRow> {
    return this.uow.run(async (tx) => {
      const db = tx.get(TENANT_DB);
      const current = await db
        .table('roles')
        .where({ id })
        .forUpdate()
        .first([...ROLE_COLUMNS]);
      if (!current) throw ApiError.notFound(`role ${id}`);
      const [row] = Object.keys(data).length
        ? await db
            .table('roles')
            .where({ id })
            .update({ ...data, updated_at: db.raw('now()') }, [...ROLE_COLUMNS])
        : [current];
      await tx.get(AuditTrail).record({ type: 'role.updated', actor: user.userName, subject: String(id), details: { fields: Object.keys(data) } });
      return row;
    });
  }

  async delete(user: Principal, id: number): Promise<RoleRow> {
    return this.uow.run(async (tx) => {
      const db = tx.get(TENANT_DB);
      const row = await db
        .table('roles')
        .where({ id })
        .forUpdate()
        .first([...ROLE_COLUMNS]);
      if (!row) throw ApiError.notFound(`role ${id}`);
      const [holders] = await db.table('person_roles').where({ role_id: id }).count({ n: '*' });
      const [units] = await db.table('organisation_roles').where({ role_id: id }).count({ n: '*' });
      const holds = [
        Number(holders.n) ? `is held by ${holders.n} person(s)` : null,
        Number(units.n) ? `is made available on ${units.n} organisation(s)` : null,
      ].filter(Boolean);
      if (holds.length) throw new ApiError(409, `role ${id} ${holds.join(' and ')}; take it away from them first`);
      const requirements = await db.table('requirements').where({ role_id: id }).pluck('competence_id');
      await db.table('roles').where({ id }).delete();
      await tx.get(AuditTrail).record({ type: 'role.deleted', actor: user.userName, subject: String(id), details: { name: row.name, requirements } });
      return row;
    });
  }

  /** Adds the requirement or changes whether it is mandatory; 404 for an unknown role or competence. */
  async setRequirement(user: Principal, roleId: number, competenceId: number, mandatory: boolean): Promise<void> {
    await referencesStillThere(() =>
      this.uow.run(async (tx) => {
        const db = tx.get(TENANT_DB);
        if (!(await db.table('roles').where({ id: roleId }).forUpdate().first('id'))) throw ApiError.notFound(`role ${roleId}`);
        const c = await db.table('competences').where({ id: competenceId }).first('id', 'parent_id', 'type');
        if (!c) throw ApiError.notFound(`competence ${competenceId}`);
        if (c.parent_id !== null) {
          throw ApiError.malformed('competence_id', `competence ${competenceId} is a ${c.type} inside competence ${c.parent_id}; require its parent instead`);
        }
        const before = await db.table('requirements').where({ role_id: roleId, competence_id: competenceId }).first('mandatory');
        await db
          .table('requirements')
          .insert({ role_id: roleId, competence_id: competenceId, mandatory })
          .onConflict(['role_id', 'competence_id'])
          .merge(['mandatory']);
        const details = { competence_id: competenceId, mandatory, was: before ? (before.mandatory ? 'mandatory' : 'optional') : 'none' };
        await tx.get(AuditTrail).record({ type: 'requirement.changed', actor: user.userName, subject: String(roleId), details });
      }),
    );
  }

  /** Removes the requirement; 404 when the role does not exist or does not require the competence. */
  async removeRequirement(user: Principal, roleId: number, competenceId: number): Promise<void> {
    await this.uow.run(async (tx) => {
      const db = tx.get(TENANT_DB);
      if (!(await db.table('roles').where({ id: roleId }).forUpdate().first('id'))) throw ApiError.notFound(`role ${roleId}`);
      const n = await db.table('requirements').where({ role_id: roleId, competence_id: competenceId }).delete();
      if (!n) throw ApiError.notFound(`requirement of competence ${competenceId} on role ${roleId}`);
      await tx.get(AuditTrail).record({ type: 'requirement.removed', actor: user.userName, subject: String(roleId), details: { competence_id: competenceId } });
    });
  }
}
