import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { Paging } from '../../platform/http/param-types';
import { inPersonState } from '../person-queries';
import type { PersonFilter } from './persons.repository';

/** A report's row head: who the person is and where they sit. */
export interface ReportPersonRow {
  id: number;
  user_name: string;
  firstname: string | null;
  lastname: string | null;
  organisation_id: number | null;
  organisation_name: string | null;
}

/** An organisation of a report's subtree, with its parent (null at the top of the subtree's tree). */
export interface ReportOrganisation {
  id: number;
  parent_id: number | null;
  name: string;
}

/**
 * Persons as the reports (competence matrix, compliance summary; issue 38) read them: the filter of
 * the persons list (PersonListScope: organisations, a manager's subtrees, person-id sub-queries),
 * active persons, in the persons list's order (last name, first name, id), with their organisation's name.
 */
@injectable()
export class ReportPersons {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  private query(filter: PersonFilter): Knex.QueryBuilder {
    const q = this.db.table('persons as p');
    if (filter.organisationIds) q.whereIn('p.organisation_id', filter.organisationIds);
    if (filter.visibleOrganisationIds) q.whereIn('p.organisation_id', filter.visibleOrganisationIds);
    for (const ids of filter.personIds) q.whereIn('p.id', ids);
    return q.modify(inPersonState('p', filter.state));
  }

  /** One page of the persons, in order. */
  page(filter: PersonFilter, page: Paging): Promise<ReportPersonRow[]> {
    return this.query(filter)
      .leftJoin('organisations as o', 'o.id', 'p.organisation_id')
      .orderBy([{ column: 'p.lastname' }, { column: 'p.firstname' }, { column: 'p.id' }])
      .select('p.id', 'p.user_name', 'p.firstname', 'p.lastname', 'p.organisation_id', 'o.name as organisation_name')
      .limit(page.limit)
      .offset(page.offset);
  }

  /** Every person's id and organisation (a summary's input), by id. */
  async all(filter: PersonFilter): Promise<{ id: number; organisation_id: number | null }[]> {
    return this.query(filter).orderBy('p.id').select('p.id', 'p.organisation_id');
  }

  /** The persons these user names name (active or not): id and organisation, for the access check and the 404 of unknown names. */
  async named(userNames: readonly string[]): Promise<{ id: number; user_name: string; organisation_id: number | null }[]> {
    return this.db
      .table('persons')
      .whereIn('user_name', [...new Set(userNames)])
      .select('id', 'user_name', 'organisation_id');
  }

  /** A person-id sub-query of these ids, for PersonFilter.personIds. */
  withIds(ids: readonly number[]): Knex.QueryBuilder {
    return this.db
      .table('persons')
      .whereIn('id', [...ids])
      .select('id');
  }

  /** The organisation and every one below it (or only itself), with parents; the subtree's top has parent_id null. */
  async subtree(rootId: number, recursive: boolean): Promise<ReportOrganisation[]> {
    const r = await this.db.raw<{ rows: ReportOrganisation[] }>(
      `with recursive sub(id, parent_id, name) as (
         select id, null::int, name from ?? where id = ?
         union all
         select o.id, o.parent_id, o.name from ?? o join sub on o.parent_id = sub.id where ?)
       select id, parent_id, name from sub order by name, id`,
      [this.db.ref('organisations'), rootId, this.db.ref('organisations'), recursive],
    );
    return r.rows;
  }
}
