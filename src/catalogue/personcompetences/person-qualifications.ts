import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import { missingIds, type TenantDb } from '../../platform/tenant-scope/tenant-db';

/** Which competences exist, for the 404 of a filter that names them (GET /api/persons has_competence_ids). */
@injectable()
export class Qualifications {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  missing(competenceIds: number[]): Promise<number[]> {
    return missingIds(this.db, 'competences', competenceIds);
  }
}
