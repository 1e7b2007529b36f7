import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenancy/tenant-db';
import type { Transaction } from '../../platform/tenancy/unit-of-work';
import { joinPersons } from '../../people';
import type { PersonDataHolder, PersonKey } from '../../platform/privacy/personal-data';

/** A calendar date as text: pg would build a local-midnight Date that shifts in JSON. */
const day = (db: TenantDb, col: string, as: string) => db.raw(`to_char(${col}, 'YYYY-MM-DD') as ${as}`);

/** What the catalogue keeps about a person: registrations (with their history) and role administration. */
@injectable()
export class PersonCompetenceData implements PersonDataHolder {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  async export(person: PersonKey) {
    const db = this.db;
    const personcompetences = await joinPersons(db.table('person_competences as pc').join('competences as c', 'c.id', 'pc.competence_id'), 'rb', 'pc.registered_by', 'left')
      .where('pc.person_id', person.id)
      .select('pc.id as personcompetence_id', 'pc.competence_id', 'c.title', 'c.type', 'pc.passed',
        day(db, 'pc.date', 'date'), day(db, 'pc.valid_until', 'valid_until'), 'pc.comments', 'pc.grade', 'pc.school',
        'pc.graduation_year', 'pc.skill_level', 'pc.checked', 'pc.signed', 'pc.show_course_diploma', 'pc.override',
        'rb.user_name as registered_by', 'pc.created_at', 'pc.superseded_at', 'pc.deleted_at')
      .orderBy('pc.id');
    return { personcompetences };
  }

  /** A placeholder answers no role-admin question; comments may name anyone. */
  async erase(tx: Transaction, personId: number): Promise<void> {
    await tx.get(TENANT_DB).table('role_admins').where('person_id', personId).delete();
    await tx.get(TENANT_DB).table('person_competences').where('person_id', personId).whereNotNull('comments').update({ comments: null });
  }
}
