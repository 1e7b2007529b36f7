import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import { TENANT_DB } from '../platform/tokens';
import type { TenantDb } from '../platform/tenant-scope/tenant-db';
import type { PersonKey, PersonRow, PersonState } from './person-row';
import { inPersonState } from './person-queries';
import { personsInSubtree } from './organisations/organisation-tree';

export type PersonColumn = keyof PersonRow;
/** How a person is named: by id, user name or the id of an external system. */
export type PersonKeyOf = PersonKey | { extern_person_id: string } | { email: string };

/**
 * Persons as other code reads them: the columns asked for, of the one PersonRow. Calendar dates
 * come as YYYY-MM-DD text (pg would build a local-midnight Date that shifts in JSON).
 */
@injectable()
export class PersonDirectory {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  private select<C extends PersonColumn>(columns: readonly C[]): Knex.QueryBuilder {
    return this.db.table('persons').select(columns.map((c) => (c === 'birthdate' ? this.db.raw('birthdate::text as birthdate') : c)));
  }

  /** The person with this id, user name or external id (the first of several external matches by id). */
  find<C extends PersonColumn>(key: PersonKeyOf, columns: readonly C[]): Promise<Pick<PersonRow, C> | undefined> {
    return this.select(columns).where(key).first();
  }

  /** The persons with these ids (those that exist). */
  findByIds<C extends PersonColumn>(ids: readonly number[], columns: readonly C[]): Promise<Pick<PersonRow, C>[]> {
    return this.select(columns).whereIn('id', ids);
  }

  /** Every person an external id names (at most `limit`): an SWT token must name exactly one. */
  findAll<C extends PersonColumn>(key: PersonKeyOf, columns: readonly C[], limit: number): Promise<Pick<PersonRow, C>[]> {
    return this.select(columns).where(key).limit(limit);
  }

  /** Persons a forgot-password identification may mean: the user name, else e-mail or mobile (at most 5). */
  async byIdentification<C extends PersonColumn>(identification: string, columns: readonly C[]): Promise<Pick<PersonRow, C>[]> {
    const byName = await this.find({ user_name: identification }, columns);
    if (byName) return [byName];
    const mobile = compactMobile(identification);
    return this.select(columns).whereRaw('lower(email) = lower(?)', [identification]).orWhere('mobile', mobile).orderBy('id').limit(5);
  }

  /** E-mail of the nearest active manager above the person: their organisation first, then its ancestors (a deactivated manager gets no copy). */
  async managerEmail(person: Pick<PersonRow, 'id' | 'organisation_id'>): Promise<string | null> {
    if (person.organisation_id === null) return null;
    const r = await this.db.raw<{ rows: { email: string }[] }>(
      `with recursive up(id, parent_id, depth) as (
         select id, parent_id, 0 from ?? where id = ?
         union all
         select o.id, o.parent_id, up.depth + 1 from ?? o join up on o.id = up.parent_id)
       select p.email from up
         join ?? om on om.organisation_id = up.id
         join ?? p on p.id = om.person_id
       where coalesce(p.email, '') <> '' and p.id <> ? and p.deactivated_at is null
       order by up.depth, p.id
       limit 1`,
      [
        this.db.ref('organisations'),
        person.organisation_id,
        this.db.ref('organisations'),
        this.db.ref('organisation_managers'),
        this.db.ref('persons'),
        person.id,
      ],
    );
    return r.rows[0]?.email ?? null;
  }

  /** Ids of the persons in the organisation and every organisation below it, ascending; the active ones unless `state` says otherwise. */
  async idsInSubtree(organisationId: number, state: PersonState = 'active'): Promise<number[]> {
    const rows: { id: number }[] = await this.db
      .table('persons as p')
      .whereIn('p.id', personsInSubtree(this.db, organisationId) as any)
      .modify(inPersonState('p', state))
      .orderBy('p.id')
      .select('p.id');
    return rows.map((r) => r.id);
  }

  /** id per user_name of the persons these user names name (unknown names are left out). */
  async idsByUserName(userNames: readonly string[]): Promise<Map<string, number>> {
    if (userNames.length === 0) return new Map();
    const rows: { id: number; user_name: string }[] = await this.db
      .table('persons')
      .whereIn('user_name', [...new Set(userNames)])
      .select('id', 'user_name');
    return new Map(rows.map((r) => [r.user_name, r.id]));
  }

  /** user_name per id, for presenting rows of other modules. */
  async userNames(ids: readonly number[]): Promise<Map<number, string>> {
    if (ids.length === 0) return new Map();
    const rows: { id: number; user_name: string }[] = await this.db
      .table('persons')
      .whereIn('id', [...new Set(ids)])
      .select('id', 'user_name');
    return new Map(rows.map((r) => [r.id, r.user_name]));
  }
}

/** Mobiles are stored without spaces and dashes. */
export function compactMobile(identification: string): string {
  return identification.replace(/[\s-]/g, '');
}

/**
 * One rate-limit bucket per account identification however it is typed: a mobile with any
 * spacing or dashes, an e-mail address or user name in any case.
 */
export function identificationBucket(identification: string): string {
  const mobile = compactMobile(identification);
  return /^\+?\d+$/.test(mobile) ? mobile : identification.trim().toLowerCase();
}
