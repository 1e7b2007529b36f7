import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenancy/tenant-db';
import type { Paging } from '../../platform/http/param-types';
import { personsInSubtree, userNameOf } from '../../people';

export interface Period {
  start: Date;
  end: Date;
}

/** Reads what changed in a period; registrations are history rows, so every registration is visible. */
@injectable()
export class ChangesRepository {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  private personsIn(organisationId: number): Knex.Raw {
    return personsInSubtree(this.db, organisationId);
  }

  /** Registrations made in the period and deletions done in it, oldest first. */
  async personCompetences(period: Period, organisationId: number | undefined, page: Paging) {
    const orgFilter = organisationId === undefined ? '' : `and pc.person_id in ${this.personsIn(organisationId).toQuery()}`;
    // user names come from the people module (userNameOf); a deletion is one row per person (person_id) and day
    const sql = `
      select * from (
        select pc.id::int as personcompetence_id, pc.competence_id, c.title, c.type, ? as user_name, pc.passed,
               pc.date::text as date, pc.valid_until::text as valid_until, pc.checked, pc.signed, pc.override,
               ? as registered_by, (pc.superseded_at is null and pc.deleted_at is null) as current,
               false as deleted, pc.created_at as changed_at
          from ?? pc join ?? c on c.id = pc.competence_id
         where pc.created_at >= ? and pc.created_at < ? ${orgFilter}
        union all
        select null, pc.competence_id, c.title, c.type, ?, null, null, null, null, null, null, null, false,
               true, pc.deleted_at
          from ?? pc join ?? c on c.id = pc.competence_id
         where pc.deleted_at >= ? and pc.deleted_at < ? ${orgFilter}
         group by pc.competence_id, c.title, c.type, pc.person_id, pc.deleted_at
      ) x order by changed_at, deleted, personcompetence_id limit ? offset ?`;
    const t = [this.db.ref('person_competences'), this.db.ref('competences')];
    const person = userNameOf(this.db, 'pc.person_id');
    const r = await this.db.raw(sql, [person, userNameOf(this.db, 'pc.registered_by'), ...t, period.start, period.end, person, ...t, period.start, period.end, page.limit, page.offset]);
    return r.rows.map((row: any) => (row.deleted ? { competence_id: row.competence_id, title: row.title, type: row.type, user_name: row.user_name, deleted: true, changed_at: row.changed_at } : row));
  }

  async competences(period: Period, page: Paging) {
    const rows = await this.db
      .table('competences')
      .where('updated_at', '>=', period.start)
      .where('updated_at', '<', period.end)
      .select('id as competence_id', 'title', 'type', 'active', 'parent_id', 'competence_group_id', 'updated_at as changed_at')
      .orderBy([{ column: 'updated_at' }, { column: 'id' }])
      .limit(page.limit)
      .offset(page.offset);
    return rows.map((r: any) => ({ ...r, deleted: false }));
  }
}
