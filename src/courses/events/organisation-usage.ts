import type { TenantDb } from '../../platform/tenant-scope/tenant-db';

/** What of the courses module names an organisation: counts, zero when nothing does. */
export interface OrganisationUsageInCourses {
  /** events (past and cancelled ones too) hosted by it: deleting it would erase their host */
  hostedEvents: number;
  /** survey answers given on its behalf: deleting it would delete them */
  surveyAnswers: number;
}

/** How the courses module uses the organisation, for people's delete of an empty organisation (which refuses a used one). */
export async function organisationUsageInCourses(db: TenantDb, organisationId: number): Promise<OrganisationUsageInCourses> {
  const [events] = await db.table('events').where('host_organisation_id', organisationId).count({ n: '*' });
  const [answers] = await db.table('survey_answers').where('organisation_id', organisationId).count({ n: '*' });
  return { hostedEvents: Number(events.n), surveyAnswers: Number(answers.n) };
}
