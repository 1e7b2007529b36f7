import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import { TENANT_DB } from '../../platform/tokens';
import { missingIds, type TenantDb } from '../../platform/tenancy/tenant-db';
import { ApiError } from '../../platform/errors/api-error';
import type { Paging } from '../../platform/http/param-types';
import type { PersonRow } from '../person-row';
import { PERSON_ROLES, type HeldRole, type PersonRoles } from '../person-ports';


export interface PersonDetails {
  organisation: { id: number; name: string } | null;
  roles: HeldRole[];
  manages: { id: number; name: string }[];
}

export interface PersonFilter {
  /** Members of any of these organisations (already expanded to sub-organisations when asked). */
  organisationIds?: number[];
  /** The caller may only see members of these organisations (a manager's subtrees). */
  visibleOrganisationIds?: number[];
  /** Correlated sub-queries on persons as p (signed on to an event, holds a competence, ...), each must match. */
  matching?: Knex.QueryBuilder[];
}

const TEXT_COLUMNS = [
  'user_name', 'firstname', 'lastname', 'jobtitle', 'mobile', 'email', 'extern_person_id', 'address', 'postcode',
  'city', 'phone', 'sex', 'notice', 'employee_code', 'profile_image', 'source', 'code',
];

/** What the simple view shows: a list of them selects nothing else (no dates to parse, less to send). */
export const SIMPLE_COLUMNS = ['id', 'user_name', 'firstname', 'lastname', 'jobtitle', 'email', 'mobile', 'organisation_id', 'employee_code'] as const;
export type SimplePersonRow = Pick<PersonRow, (typeof SIMPLE_COLUMNS)[number]>;

const PG_UNIQUE_VIOLATION = '23505';

function hasDetails(p: PersonRow): p is PersonRow & PersonDetails {
  return 'roles' in p && 'manages' in p && 'organisation' in p;
}

/** Persons of the tenant; the password hash is never selected here. */
@injectable()
export class PersonsRepository {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(PERSON_ROLES) private readonly roles: PersonRoles,
  ) {}

  private select(withDetails = false): Knex.QueryBuilder {
    const q = this.db
      .table('persons as p')
      .select(
        'p.id',
        ...TEXT_COLUMNS.map((c) => `p.${c}`),
        // a calendar date: text avoids the local-midnight Date that pg would build
        this.db.raw("to_char(p.birthdate, 'YYYY-MM-DD') as birthdate"),
        'p.organisation_id',
        'p.superuser',
        'p.superadmin',
        'p.password_changed_at',
        'p.must_change_password',
        'p.created_at',
        'p.updated_at',
      );
    return withDetails ? q.select(this.detailColumns()) : q;
  }

  /**
   * organisation, roles and manages as JSON columns of the person query itself: a full view
   * costs no round trip of its own (round trips, not the sub-selects, dominate its cost).
   */
  private detailColumns(): Knex.Raw[] {
    const ref = (t: string) => this.db.ref(t);
    return [
      this.db.raw(`(select json_build_object('id', o.id, 'name', o.name) from ?? o where o.id = p.organisation_id) as organisation`, [ref('organisations')]),
      this.roles.heldColumn(this.db),
      this.db.raw(
        `coalesce((select json_agg(json_build_object('id', o.id, 'name', o.name) order by o.id)
           from ?? om join ?? o on o.id = om.organisation_id where om.person_id = p.id), '[]'::json) as manages`,
        [ref('organisation_managers'), ref('organisations')],
      ),
    ];
  }

  findByUserName(userName: string, withDetails = false): Promise<PersonRow | undefined> {
    return this.select(withDetails).where('p.user_name', userName).first();
  }

  findById(id: number, withDetails = false): Promise<PersonRow | undefined> {
    return this.select(withDetails).where('p.id', id).first();
  }

  list(filter: PersonFilter, page: Paging, view: 'simple'): Promise<SimplePersonRow[]>;
  list(filter: PersonFilter, page: Paging, view: 'full'): Promise<PersonRow[]>;
  list(filter: PersonFilter, page: Paging, view: 'simple' | 'full'): Promise<SimplePersonRow[] | PersonRow[]> {
    const base = view === 'full' ? this.select(true) : this.db.table('persons as p').select(SIMPLE_COLUMNS.map((c) => `p.${c}`));
    const q = base.orderBy([{ column: 'p.lastname' }, { column: 'p.firstname' }, { column: 'p.id' }]);
    if (filter.organisationIds) q.whereIn('p.organisation_id', filter.organisationIds);
    if (filter.visibleOrganisationIds) q.whereIn('p.organisation_id', filter.visibleOrganisationIds);
    for (const sub of filter.matching ?? []) q.whereExists(sub);
    return q.limit(page.limit).offset(page.offset);
  }

  // joins on a db.table() builder get the tenant schema from withSchema, so they name plain tables
  async details(p: PersonRow): Promise<PersonDetails> {
    if (hasDetails(p)) return p;
    const [organisation, roles, manages] = await Promise.all([
      p.organisation_id === null
        ? undefined
        : this.db.table('organisations').select('id', 'name').where({ id: p.organisation_id }).first(),
      this.roles.held(p.id),
      this.db.table('organisation_managers as om').join('organisations as o', 'o.id', 'om.organisation_id')
        .where('om.person_id', p.id).select('o.id', 'o.name').orderBy('o.id'),
    ]);
    return { organisation: organisation ?? null, roles, manages };
  }

  async insert(row: Record<string, unknown>): Promise<number> {
    try {
      const [r] = await this.db.table('persons').insert(row).returning('id');
      return r.id;
    } catch (e) {
      throw translate(e, row.user_name);
    }
  }

  async update(id: number, changes: Record<string, unknown>): Promise<void> {
    try {
      await this.db.table('persons').where({ id }).update({ ...changes, updated_at: this.db.fn.now() });
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

function translate(e: unknown, userName: unknown): unknown {
  if ((e as { code?: string })?.code === PG_UNIQUE_VIOLATION) {
    return ApiError.malformed('person_data[user_name]', `user name "${String(userName)}" is already taken`);
  }
  return e;
}
