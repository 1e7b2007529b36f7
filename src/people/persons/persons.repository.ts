import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import { TENANT_DB } from '../../platform/tokens';
import { missingIds, type TenantDb } from '../../platform/tenant-scope/tenant-db';
import { ApiError } from '../../platform/errors/api-error';
import type { Paging } from '../../platform/http/param-types';
import type { PersonKey, PersonRow, PersonState } from '../person-row';
import { inPersonState } from '../person-queries';
import { whereCondition, type PersonCondition } from './person-condition';

/** A role as a person's full view shows it. */
export interface RoleShown {
  id: number;
  name: string;
  meta_type: string;
}

export interface PersonDetails {
  organisation: { id: number; name: string } | null;
  roles: RoleShown[];
  manages: { id: number; name: string }[];
}

export type PersonWithDetails = PersonRow & PersonDetails;

/**
 * A scalar sub-select another module computes per person (the roles held, a JSON array), handed in
 * by a flow: it is given the person id column of the query it goes into, so this module's alias
 * stays its own and the full view stays one statement.
 */
export type PersonSubSelect = (db: TenantDb, personIdColumn: string) => Knex.Raw;

export interface PersonFilter {
  /** Members of any of these organisations (already expanded to sub-organisations when asked). */
  organisationIds?: number[];
  /** The caller may only see members of these organisations (a manager's subtrees). */
  visibleOrganisationIds?: number[];
  /** Self-contained sub-queries selecting person ids (signed on to an event, holds a competence, ...): each must contain the person. */
  personIds: Knex.QueryBuilder[];
  /** Active persons only unless asked otherwise (deactivated, all). */
  state?: PersonState;
  /** Part of the user name, first or last name ("Kari Nord" too), e-mail or employee code, case-insensitive. */
  term?: string;
}

const TEXT_COLUMNS = [
  'user_name',
  'firstname',
  'lastname',
  'jobtitle',
  'mobile',
  'email',
  'extern_person_id',
  'address',
  'postcode',
  'city',
  'phone',
  'sex',
  'notice',
  'employee_code',
  'profile_image',
  'source',
  'code',
  'language',
];
const OTHER_COLUMNS = [
  'organisation_id',
  'superuser',
  'superadmin',
  'password_changed_at',
  'must_change_password',
  'deactivated_at',
  'created_at',
  'updated_at',
];

/** What the simple view shows: a list of them selects nothing else (no dates to parse, less to send). */
export const SIMPLE_COLUMNS = ['id', 'user_name', 'firstname', 'lastname', 'jobtitle', 'email', 'mobile', 'organisation_id', 'employee_code'] as const;
export type SimplePersonRow = Pick<PersonRow, (typeof SIMPLE_COLUMNS)[number]>;

const PG_UNIQUE_VIOLATION = '23505';

function hasDetails(p: PersonRow): p is PersonWithDetails {
  return 'roles' in p && 'manages' in p && 'organisation' in p;
}

/**
 * Persons of the tenant; the password hash is never selected here. Queries alias persons as `p`;
 * a sub-select of another module is handed `p.id` (PersonSubSelect). Got by `tx.get(PersonsRepository)`
 * it writes in that transaction.
 */
@injectable()
export class PersonsRepository {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  /** The PersonRow columns, prefixed with `prefix` (the alias, or nothing for RETURNING). */
  private rowColumns(prefix: string): (string | Knex.Raw)[] {
    return [
      `${prefix}id`,
      ...TEXT_COLUMNS.map((c) => `${prefix}${c}`),
      // a calendar date: text avoids the local-midnight Date that pg would build
      this.db.raw(`to_char(${prefix}birthdate, 'YYYY-MM-DD') as birthdate`),
      ...OTHER_COLUMNS.map((c) => `${prefix}${c}`),
    ];
  }

  private select(roles?: PersonSubSelect): Knex.QueryBuilder {
    const q = this.db.table('persons as p').select(this.rowColumns('p.'));
    return roles ? q.select(this.detailColumns(roles)) : q;
  }

  /**
   * organisation, roles and manages as JSON columns of the person query itself: a full view
   * costs no round trip of its own (round trips, not the sub-selects, dominate its cost).
   */
  private detailColumns(roles: PersonSubSelect): Knex.Raw[] {
    const ref = (t: string) => this.db.ref(t);
    return [
      this.db.raw(`(select json_build_object('id', o.id, 'name', o.name) from ?? o where o.id = p.organisation_id) as organisation`, [ref('organisations')]),
      this.db.raw('? as roles', [roles(this.db, 'p.id')]),
      this.db.raw(
        `coalesce((select json_agg(json_build_object('id', o.id, 'name', o.name) order by o.id)
           from ?? om join ?? o on o.id = om.organisation_id where om.person_id = p.id), '[]'::json) as manages`,
        [ref('organisation_managers'), ref('organisations')],
      ),
    ];
  }

  find(key: PersonKey): Promise<PersonRow | undefined> {
    return this.select().where(aliased(key)).first();
  }

  /** The persons whose user name (or external id) is one of `values`: an import's batch, read in one statement. */
  findMany(column: 'user_name' | 'extern_person_id', values: readonly string[]): Promise<PersonRow[]> {
    if (values.length === 0) return Promise.resolve([]);
    return this.select().whereIn(`p.${column}`, [...new Set(values)]);
  }

  /** Every active (not deactivated) person's keys: what a persons import with deactivate_missing compares its file with. */
  activeKeys(): Promise<Pick<PersonRow, 'id' | 'user_name' | 'extern_person_id'>[]> {
    return this.db.table('persons').whereNull('deactivated_at').orderBy('id').select('id', 'user_name', 'extern_person_id');
  }

  /** The person and what the full view adds (organisation, roles, manages), in one statement. */
  findWithDetails(key: PersonKey, roles: PersonSubSelect): Promise<PersonWithDetails | undefined> {
    return this.select(roles).where(aliased(key)).first();
  }

  list(filter: PersonFilter, page: Paging): Promise<SimplePersonRow[]>;
  list(filter: PersonFilter, page: Paging, roles: PersonSubSelect): Promise<PersonWithDetails[]>;
  list(filter: PersonFilter, page: Paging, roles?: PersonSubSelect): Promise<SimplePersonRow[] | PersonWithDetails[]> {
    const base = roles ? this.select(roles) : this.db.table('persons as p').select(SIMPLE_COLUMNS.map((c) => `p.${c}`));
    const q = base.orderBy([{ column: 'p.lastname' }, { column: 'p.firstname' }, { column: 'p.id' }]);
    if (filter.organisationIds) q.whereIn('p.organisation_id', filter.organisationIds);
    if (filter.visibleOrganisationIds) q.whereIn('p.organisation_id', filter.visibleOrganisationIds);
    for (const ids of filter.personIds) q.whereIn('p.id', ids);
    if (filter.term) {
      const like = `%${filter.term.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
      q.where((w) => {
        for (const c of ['user_name', 'firstname', 'lastname', 'email', 'employee_code']) w.orWhereILike(`p.${c}`, like);
        w.orWhereRaw("concat_ws(' ', p.firstname, p.lastname) ilike ?", [like]);
      });
    }
    q.modify(inPersonState('p', filter.state));
    return q.limit(page.limit).offset(page.offset);
  }

  /** Persons matching `c`, deactivated ones included, in id order, and how many match in all (SCIM's GET /Users). */
  async search(c: PersonCondition, page: Paging): Promise<{ total: number; rows: PersonRow[] }> {
    const [{ n }] = await this.db
      .table('persons as p')
      .modify((q) => whereCondition(q, 'p', c))
      .count({ n: '*' });
    const rows =
      page.limit === 0
        ? []
        : await this.select()
            .modify((q) => whereCondition(q, 'p', c))
            .orderBy('p.id')
            .limit(page.limit)
            .offset(page.offset);
    return { total: Number(n), rows };
  }

  /** What the full view adds to a row read without it (after a write): one statement, on persons not at all. */
  async details(p: Pick<PersonRow, 'id' | 'organisation_id'>, roles: PersonSubSelect): Promise<PersonDetails> {
    if (hasDetails(p as PersonRow)) return p as PersonWithDetails;
    // the row's two columns stand in for persons as p, so the same sub-selects serve
    const one = this.db.raw('(select ?::integer as id, ?::integer as organisation_id) as p', [p.id, p.organisation_id]);
    return this.db.builder.select(this.detailColumns(roles)).from(one).first();
  }

  /**
   * The person's row, locked for the rest of the transaction (a deactivation or reactivation queues
   * here). FOR NO KEY UPDATE, as an UPDATE locks: inserts that refer to the person (a sign-on) are not held up.
   */
  findForUpdate(id: number): Promise<PersonRow | undefined> {
    return this.select().where('p.id', id).forNoKeyUpdate().first();
  }

  /**
   * Deactivates (`by`: the person who did it) or reactivates (`by` null) the person; answers the row
   * as it is now. Only the lifecycle flow calls it, in its transaction, on a row it locked.
   */
  setDeactivated(id: number, at: Date | null, by: number | null): Promise<PersonRow | undefined> {
    return this.update(id, { deactivated_at: at, deactivated_by: at === null ? null : by });
  }

  /** Inserts the person and answers the new row. */
  async insert(row: Record<string, unknown>): Promise<PersonRow> {
    try {
      const [created] = await this.db.table('persons').insert(row).returning(this.rowColumns(''));
      return created;
    } catch (e) {
      throw translate(e, row.user_name);
    }
  }

  /** Updates the person and answers the row as it is now (undefined: no such person). */
  async update(id: number, changes: Record<string, unknown>): Promise<PersonRow | undefined> {
    try {
      const [updated] = await this.db
        .table('persons')
        .where({ id })
        .update({ ...changes, updated_at: this.db.fn.now() })
        .returning(this.rowColumns(''));
      return updated;
    } catch (e) {
      throw translate(e, changes.user_name);
    }
  }

  userNameTaken(userName: string, exceptId?: number): Promise<boolean> {
    const q = this.db.table('persons').where({ user_name: userName });
    if (exceptId !== undefined) q.whereNot({ id: exceptId });
    return q.first('id').then(Boolean);
  }

  /** Ids among `ids` that are no organisation. */
  missingOrganisations(ids: number[]): Promise<number[]> {
    return missingIds(this.db, 'organisations', ids);
  }
}

function aliased(key: PersonKey): Record<string, unknown> {
  return 'id' in key ? { 'p.id': key.id } : { 'p.user_name': key.user_name };
}

function translate(e: unknown, userName: unknown): unknown {
  if ((e as { code?: string })?.code === PG_UNIQUE_VIOLATION) {
    return ApiError.malformed('person_data[user_name]', `user name "${String(userName)}" is already taken`);
  }
  return e;
}
