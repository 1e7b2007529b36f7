import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { PersonRow } from '../person-row';

/** The columns of a manager as the Person simple view shows them. */
export const MANAGER_COLUMNS = ['id', 'user_name', 'firstname', 'lastname', 'jobtitle', 'email', 'mobile', 'organisation_id', 'employee_code'] as const;
export type ManagerRow = Pick<PersonRow, (typeof MANAGER_COLUMNS)[number]>;

/** Who manages which organisations (organisation_managers), with the subtrees below them. */
@injectable()
export class OrganisationManagersRepository {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  /** Which of the persons manage which organisations (directly), in one statement: person id -> organisation ids. */
  async managedDirectly(personIds: readonly number[]): Promise<Map<number, Set<number>>> {
    const out = new Map<number, Set<number>>();
    if (personIds.length === 0) return out;
    const rows: { person_id: number; organisation_id: number }[] = await this.db
      .table('organisation_managers')
      .whereIn('person_id', [...new Set(personIds)])
      .select('person_id', 'organisation_id');
    for (const r of rows) out.set(r.person_id, (out.get(r.person_id) ?? new Set()).add(r.organisation_id));
    return out;
  }

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

  /** The persons assigned to manage the organisation itself (not those of organisations above it), by last name, first name, id. */
  managersOf(organisationId: number): Promise<ManagerRow[]> {
    return this.db
      .table('organisation_managers as om')
      .join('persons as p', 'p.id', 'om.person_id')
      .where('om.organisation_id', organisationId)
      .select(MANAGER_COLUMNS.map((c) => `p.${c}`))
      .orderBy([{ column: 'p.lastname' }, { column: 'p.firstname' }, { column: 'p.id' }]);
  }

  /** Makes the person a manager of the organisation; false when they already were. */
  async add(personId: number, organisationId: number): Promise<boolean> {
    const rows = await this.db
      .table('organisation_managers')
      .insert({ person_id: personId, organisation_id: organisationId })
      .onConflict(['person_id', 'organisation_id'])
      .ignore()
      .returning('person_id');
    return rows.length > 0;
  }

  /** Ends the person's assignment to the organisation; false when there was none. */
  async remove(personId: number, organisationId: number): Promise<boolean> {
    return (await this.db.table('organisation_managers').where({ person_id: personId, organisation_id: organisationId }).delete()) > 0;
  }
}
