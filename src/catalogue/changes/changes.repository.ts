import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { Paging } from '../../platform/http/param-types';

export interface Period {
  start: Date;
  end: Date;
}

/** A registration made in the period; persons by id (the feed names them). */
export interface RegistrationChangeRow {
  personcompetence_id: number;
  competence_id: number;
  title: string;
  type: string;
  person_id: number;
  passed: number;
  date: string | null;
  valid_until: string | null;
  checked: boolean | null;
  signed: boolean | null;
  override: boolean;
  registered_by: number | null;
  current: boolean;
  deleted: false;
  changed_at: Date;
}

/** The deletion of a person's registrations of a competence. */
export interface RegistrationDeletionRow {
  competence_id: number;
  title: string;
  type: string;
  person_id: number;
  deleted: true;
  changed_at: Date;
}

/** Reads what changed in a period; registrations are history rows, so every registration is visible. */
@injectable()
export class ChangesRepository {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  /**
   * Registrations made in the period and deletions done in it, oldest first. `persons`: only those
   * of these persons (a sub-query of person ids). A deletion is one row per person and day.
   */
  async personCompetences(
    period: Period,
    persons: Knex.QueryBuilder | Knex.Raw | undefined,
    page: Paging,
  ): Promise<(RegistrationChangeRow | RegistrationDeletionRow)[]> {
    const personFilter = persons === undefined ? '' : 'and pc.person_id in ?';
    const sql = `
      select * from (
        select pc.id::int as personcompetence_id, pc.competence_id, c.title, c.type, pc.person_id, pc.passed,
               pc.date::text as date, pc.valid_until::text as valid_until, pc.checked, pc.signed, pc.override,
               pc.registered_by, (pc.superseded_at is null and pc.deleted_at is null) as current,
               false as deleted, pc.created_at as changed_at
          from ?? pc join ?? c on c.id = pc.competence_id
         where pc.created_at >= ? and pc.created_at < ? ${personFilter}
        union all
        select null, pc.competence_id, c.title, c.type, pc.person_id, null, null, null, null, null, null, null, false,
               true, pc.deleted_at
          from ?? pc join ?? c on c.id = pc.competence_id
         where pc.deleted_at >= ? and pc.deleted_at < ? ${personFilter}
         group by pc.competence_id, c.title, c.type, pc.person_id, pc.deleted_at
      ) x order by changed_at, deleted, personcompetence_id limit ? offset ?`;
    const t = [this.db.ref('person_competences'), this.db.ref('competences')];
    const only = persons === undefined ? [] : [persons];
    const r = await this.db.raw(sql, [...t, period.start, period.end, ...only, ...t, period.start, period.end, ...only, page.limit, page.offset]);
    return r.rows.map((row: any) =>
      row.deleted
        ? { competence_id: row.competence_id, title: row.title, type: row.type, person_id: row.person_id, deleted: true, changed_at: row.changed_at }
        : row,
    );
  }

  /**
   * Competences created or changed in the period (their updated_at) and those deleted in it (the
   * tombstones of competence_deletions, as `{competence_id, title, type, deleted: true}`), oldest first.
   */
  async competences(period: Period, page: Paging) {
    const r = await this.db.raw(
      `select * from (
         select id as competence_id, title, type, active, parent_id, competence_group_id, false as deleted, updated_at as changed_at
           from ?? where updated_at >= ? and updated_at < ?
         union all
         select competence_id, title, type, null, null, null, true, deleted_at
           from ?? where deleted_at >= ? and deleted_at < ?
       ) x order by changed_at, deleted, competence_id limit ? offset ?`,
      [this.db.ref('competences'), period.start, period.end, this.db.ref('competence_deletions'), period.start, period.end, page.limit, page.offset],
    );
    return r.rows.map((x: any) =>
      x.deleted
        ? { competence_id: x.competence_id, title: x.title, type: x.type, deleted: true, changed_at: x.changed_at }
        : {
            competence_id: x.competence_id,
            title: x.title,
            type: x.type,
            active: x.active,
            parent_id: x.parent_id,
            competence_group_id: x.competence_group_id,
            deleted: false,
            changed_at: x.changed_at,
          },
    );
  }
}
