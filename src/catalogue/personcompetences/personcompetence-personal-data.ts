import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { Transaction } from '../../platform/tenant-scope/unit-of-work';
import type { RegistrationRow } from './personcompetences.repository';
import { CertificatesRepository } from '../certificates/certificates.repository';

/** A calendar date as text: pg would build a local-midnight Date that shifts in JSON. */
const day = (db: TenantDb, col: string, as: string) => db.raw(`to_char(${col}, 'YYYY-MM-DD') as ${as}`);

/** A registration of the person, history too, with the registrar's user name a flow joined on. */
export type RegistrationOfPerson = Omit<RegistrationRow, 'id' | 'person_id' | 'registered_by'> & {
  personcompetence_id: number;
  title: string;
  type: string;
  registered_by: string | null;
  superseded_at: Date | null;
  deleted_at: Date | null;
};

/**
 * What the catalogue keeps about a person, for the rights of access and erasure: registrations
 * (with their history) and role administration. The export names whoever registered, which is
 * people's: the flow that registers the GDPR holder (src/flows/registrations/registration-personal-data.ts)
 * joins the name onto `registrationsOf` and hands the rows to `export`.
 */
@injectable()
export class PersonCompetenceData {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  /**
   * The person's registrations as `person_competences as pc` (pc.registered_by: a person id), in id
   * order: RegistrationOfPerson once `registered_by`, the registrar's user name, is on.
   */
  registrationsOf(personId: number): Knex.QueryBuilder {
    const db = this.db;
    return db
      .table('person_competences as pc')
      .join('competences as c', 'c.id', 'pc.competence_id')
      .where('pc.person_id', personId)
      .select(
        'pc.id as personcompetence_id',
        'pc.competence_id',
        'c.title',
        'c.type',
        'pc.passed',
        day(db, 'pc.date', 'date'),
        day(db, 'pc.valid_until', 'valid_until'),
        'pc.comments',
        'pc.grade',
        'pc.school',
        'pc.graduation_year',
        'pc.skill_level',
        'pc.checked',
        'pc.signed',
        'pc.show_course_diploma',
        'pc.override',
        'pc.created_at',
        'pc.superseded_at',
        'pc.deleted_at',
      )
      .orderBy('pc.id');
  }

  /** The export section. */
  export(rows: RegistrationOfPerson[]): { personcompetences: Record<string, unknown>[] } {
    const personcompetences = rows.map((r) => ({
      personcompetence_id: r.personcompetence_id,
      competence_id: r.competence_id,
      title: r.title,
      type: r.type,
      passed: r.passed,
      date: r.date,
      valid_until: r.valid_until,
      comments: r.comments,
      grade: r.grade,
      school: r.school,
      graduation_year: r.graduation_year,
      skill_level: r.skill_level,
      checked: r.checked,
      signed: r.signed,
      show_course_diploma: r.show_course_diploma,
      override: r.override,
      registered_by: r.registered_by,
      created_at: r.created_at,
      superseded_at: r.superseded_at,
      deleted_at: r.deleted_at,
    }));
    return { personcompetences };
  }

  /** A placeholder answers no role-admin question; comments may name anyone; their certificates verify as revoked. */
  async erase(tx: Transaction, personId: number): Promise<void> {
    await tx.get(CertificatesRepository).revokeAllOf(personId, 'person_erased');
    await tx.get(TENANT_DB).table('role_admins').where('person_id', personId).delete();
    await tx.get(TENANT_DB).table('person_competences').where('person_id', personId).whereNotNull('comments').update({ comments: null });
  }
}
