import type { TenantDb } from '../../platform/tenant-scope/tenant-db';

/** What of the catalogue names an organisation: counts, zero when nothing does. */
export interface OrganisationUsageInCatalogue {
  /** competences restricted to it (competence_organisations): without the row a competence restricted to it alone would become valid everywhere */
  restrictedCompetences: number;
  /** roles made available in it (organisational functions, organisation_roles) */
  organisationalFunctions: number;
}

/** How the catalogue uses the organisation, for people's delete of an empty organisation (which refuses a used one). */
export async function organisationUsageInCatalogue(db: TenantDb, organisationId: number): Promise<OrganisationUsageInCatalogue> {
  const [competences] = await db.table('competence_organisations').where('organisation_id', organisationId).count({ n: '*' });
  const [functions] = await db.table('organisation_roles').where('organisation_id', organisationId).count({ n: '*' });
  return { restrictedCompetences: Number(competences.n), organisationalFunctions: Number(functions.n) };
}
