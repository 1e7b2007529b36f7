import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import { TenantClock } from '../../platform/time/tenant-clock';
import { PersonDirectory, type PersonState } from '../../people';
import { competenceLevel } from '../../catalogue';

/**
 * GET /api/competencelevel: the catalogue counts required and held competences (one statement) for
 * the persons people names: one person, or the persons of an organisation and every unit below it
 * (its active persons unless `state` asks for deactivated ones or all).
 */
@injectable()
export class CompetenceLevelFlow {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(TenantClock) private readonly clock: TenantClock,
    @inject(PersonDirectory) private readonly persons: PersonDirectory,
  ) {}

  async ofOrganisation(organisationId: number, state: PersonState = 'active') {
    return competenceLevel(this.db, await this.persons.idsInSubtree(organisationId, state), this.clock.today());
  }

  async ofPerson(personId: number) {
    return competenceLevel(this.db, [personId], this.clock.today());
  }
}
