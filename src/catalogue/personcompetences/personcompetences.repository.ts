import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { Knex } from 'knex';

/**
 * The SQL half of "held": a current registration (alias pc), passed and not expired on
 * `today`, the tenant's calendar day. Passed as a parameter, not SQL current_date, which
 * is the day in the database session's zone.
 */
export function heldOn(q: Knex.QueryBuilder, today: string): Knex.QueryBuilder {
  return q
    .whereNull('pc.superseded_at')
    .whereNull('pc.deleted_at')
    .where('pc.passed', '>', 0)
    .where((w) => void w.whereNull('pc.valid_until').orWhere('pc.valid_until', '>=', today));
}

/** One registration row; calendar dates come out as YYYY-MM-DD text. Persons by id: people names them. */
export interface RegistrationRow {
  id: number;
  person_id: number;
  competence_id: number;
  passed: number;
  date: string | null;
  valid_until: string | null;
  comments: string | null;
  grade: number | null;
  school: string | null;
  graduation_year: string | null;
  skill_level: number | null;
  checked: boolean | null;
  signed: boolean | null;
  show_course_diploma: boolean | null;
  override: boolean;
  registered_by: number | null;
  created_at: Date;
}

export type NewRegistration = Omit<RegistrationRow, 'id' | 'created_at'>;

/** The fields every registration names; the type-specific rest start empty (null) and not as an override. */
type RegistrationCore = Pick<NewRegistration, 'person_id' | 'competence_id' | 'passed' | 'date' | 'valid_until' | 'registered_by'>;

/** A new registration from its core, every type-specific field empty: the caller sets what its type stores. */
export function newRegistration(core: RegistrationCore, rest: Partial<NewRegistration> = {}): NewRegistration {
  return {
    comments: null,
    grade: null,
    school: null,
    graduation_year: null,
    skill_level: null,
    checked: null,
    signed: null,
    show_course_diploma: null,
    override: false,
    ...core,
    ...rest,
  };
}

@injectable()
export class PersonCompetencesRepository {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  private select(db: TenantDb = this.db) {
    return db
      .table('person_competences as pc')
      .select(
        'pc.id',
        'pc.person_id',
        'pc.competence_id',
        'pc.passed',
        'pc.comments',
        'pc.grade',
        'pc.school',
        'pc.graduation_year',
        'pc.skill_level',
        'pc.checked',
        'pc.signed',
        'pc.show_course_diploma',
        'pc.override',
        'pc.registered_by',
        'pc.created_at',
        db.raw('pc.date::text as date'),
        db.raw('pc.valid_until::text as valid_until'),
      );
  }

  /** Current registrations (not superseded, not deleted) of a person. */
  async current(personId: number): Promise<RegistrationRow[]> {
    const rows = await this.select().where('pc.person_id', personId).whereNull('pc.superseded_at').whereNull('pc.deleted_at');
    return rows.map((r: any) => ({ ...r, id: Number(r.id) }));
  }

  /** Every live (not deleted) registration, current or history, of these persons and competences: an import's batch. */
  async liveOf(personIds: readonly number[], competenceIds: readonly number[]): Promise<(RegistrationRow & { current: boolean })[]> {
    if (personIds.length === 0 || competenceIds.length === 0) return [];
    const rows = await this.select()
      .select(this.db.raw('(pc.superseded_at is null) as current'))
      .whereIn('pc.person_id', [...new Set(personIds)])
      .whereIn('pc.competence_id', [...new Set(competenceIds)])
      .whereNull('pc.deleted_at');
    return rows.map((r: any) => ({ ...r, id: Number(r.id) }));
  }

  /**
   * A new registration supersedes the current one; the old row stays as history. Run on a
   * transaction's repository (`tx.get`). Registrations of one person and competence take turns
   * (a transaction-scoped advisory lock): without it, of twenty identical registrations at once
   * each found the same current row, all but one insert hit person_competences_current, and a
   * loser could lose every retry (409).
   */
  async supersedeWith(row: NewRegistration): Promise<RegistrationRow> {
    const db = this.db;
    await db.raw('select pg_advisory_xact_lock(hashtext(?))', [`person_competence:${db.schema}:${row.person_id}:${row.competence_id}`]);
    await db
      .table('person_competences')
      .where({ person_id: row.person_id, competence_id: row.competence_id })
      .whereNull('superseded_at')
      .whereNull('deleted_at')
      .update({ superseded_at: db.fn.now(), updated_at: db.fn.now() });
    const [{ id }] = await db.table('person_competences').insert(row).returning('id');
    const found = await this.select(db).where('pc.id', id).first();
    return { ...found, id: Number(found.id) };
  }

  /** Marks every occurrence (current and history) deleted; returns how many were live. */
  async deleteAll(personId: number, competenceId: number): Promise<number> {
    return this.db
      .table('person_competences')
      .where({ person_id: personId, competence_id: competenceId })
      .whereNull('deleted_at')
      .update({ deleted_at: this.db.fn.now(), updated_at: this.db.fn.now() });
  }

  async roleIdsOf(personId: number): Promise<number[]> {
    return (await this.db.table('person_roles').where('person_id', personId).select('role_id')).map((r: any) => r.role_id);
  }

  /** Requirements of these roles on active competences. */
  async requirements(roleIds: number[]): Promise<{ role_id: number; competence_id: number; mandatory: boolean }[]> {
    return this.db
      .table('requirements as q')
      .join('competences as c', 'c.id', 'q.competence_id')
      .whereIn('q.role_id', roleIds)
      .where('c.active', true)
      .select('q.role_id', 'q.competence_id', 'q.mandatory');
  }
}
