import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { CompetenceRow } from './competence.row';

/** A competence as other modules ask for it (the survey a question belongs to, the owner of a course). */
export type CompetenceFacts = Pick<CompetenceRow, 'id' | 'title' | 'type' | 'owner_id' | 'instructor_id'>;

export function findCompetence(db: TenantDb, id: number): Promise<CompetenceFacts | undefined> {
  return db.table('competences').where({ id }).first('id', 'title', 'type', 'owner_id', 'instructor_id');
}

/** The survey a competence belongs to (itself, or the root above a question); null when it is no survey's. */
export async function surveyOf(db: TenantDb, competenceId: number): Promise<number | null> {
  const r = await db.raw<{ rows: { id: number; type: string }[] }>(
    `with recursive up(id, parent_id, type) as (
       select id, parent_id, type from ?? where id = ?
       union select c.id, c.parent_id, c.type from ?? c join up on c.id = up.parent_id)
     select id, type from up where parent_id is null`,
    [db.ref('competences'), competenceId, db.ref('competences')],
  );
  const root = r.rows[0];
  return root && root.type === 'survey' ? root.id : null;
}

export interface SurveyTree {
  survey: Pick<CompetenceRow, 'id' | 'title' | 'owner_id' | 'instructor_id'>;
  /** question id -> parent competence id */
  parentOf: Map<number, number>;
}

/** A survey and its question tree; null when the id is no survey. */
export async function loadSurvey(db: TenantDb, surveyId: number): Promise<SurveyTree | null> {
  const survey = await db.table('competences').where({ id: surveyId, type: 'survey' }).first('id', 'title', 'owner_id', 'instructor_id');
  if (!survey) return null;
  const r = await db.raw<{ rows: { id: number; parent_id: number }[] }>(
    `with recursive down(id, parent_id) as (
       select id, parent_id from ?? where parent_id = ?
       union select c.id, c.parent_id from ?? c join down on c.parent_id = down.id)
     select id, parent_id from down`,
    [db.ref('competences'), surveyId, db.ref('competences')],
  );
  return { survey, parentOf: new Map(r.rows.map((row) => [row.id, row.parent_id])) };
}
