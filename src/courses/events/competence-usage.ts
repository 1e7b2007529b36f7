import type { TenantDb } from '../../platform/tenant-scope/tenant-db';

/** What of the courses module uses some competences: counts, zero when nothing does. */
export interface CompetenceUsage {
  /** events (course and module events, cancelled ones too) of the competences */
  events: number;
  /** events that name one of them as a prerequisite */
  prerequisiteOf: number;
  /** survey answers given to one of them (a survey) */
  surveyAnswers: number;
}

/**
 * How the courses module uses the given competences, for the catalogue's delete (which refuses
 * to delete a used competence: its events would block it, its answers would go with it).
 */
export async function competenceUsage(db: TenantDb, competenceIds: readonly number[]): Promise<CompetenceUsage> {
  const ids = [...competenceIds];
  const [events] = await db.table('events').whereIn('competence_id', ids).count({ n: '*' });
  const [prerequisites] = await db.table('event_prerequisites').whereIn('competence_id', ids).countDistinct({ n: 'event_id' });
  const [answers] = await db.table('survey_answers').whereIn('survey_id', ids).count({ n: '*' });
  return { events: Number(events.n), prerequisiteOf: Number(prerequisites.n), surveyAnswers: Number(answers.n) };
}
