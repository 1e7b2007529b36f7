import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import { TENANT_DB } from '../../platform/tokens';
import { missingIds, type TenantDb } from '../../platform/tenancy/tenant-db';
import type { PersonQualifications } from '../../people';
import { heldOn } from './personcompetences.repository';

/** Which persons hold which competences, as the people module asks (PERSON_QUALIFICATIONS). */
@injectable()
export class Qualifications implements PersonQualifications {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  missing(competenceIds: number[]): Promise<number[]> {
    return missingIds(this.db, 'competences', competenceIds);
  }

  holds(db: TenantDb, competenceId: number, today: string): Knex.QueryBuilder {
    return heldOn(db.table('person_competences as pc').select(1).whereRaw('pc.person_id = p.id').where('pc.competence_id', competenceId), today);
  }
}
