import type { Knex } from 'knex';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import { heldOn } from './personcompetences.repository';

/**
 * Ids of the persons who hold the competence on `today` (the tenant's day: a current registration,
 * passed, valid until today or later): a self-contained sub-query on person_competences for
 * `whereIn(<person id column>, ...)` in another module's person query, composed by a flow.
 */
export function personsHoldingCompetence(db: TenantDb, competenceId: number, today: string): Knex.QueryBuilder {
  return heldOn(db.table('person_competences as pc').select('pc.person_id').where('pc.competence_id', competenceId), today);
}
