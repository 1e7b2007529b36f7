import { z } from 'zod';
import { inject, injectable } from 'tsyringe';
import { ENV, TENANT_DB } from '../../platform/tokens';
import type { Env } from '../../platform/config/env';
import type { TenantDb } from '../../platform/tenancy/tenant-db';
import { UnitOfWork } from '../../platform/tenancy/unit-of-work';
import type { Principal } from '../../platform/auth/principal';
import { joinPersons, PersonAccess } from '../../people';
import { ApiError } from '../../platform/errors/api-error';
import { FilesService } from '../files/files.service';
import { isoDateTime } from '../events/event.presenter';
import { validateItems, walkItems, type SurveyData } from './survey-data';
import { joinCompetences, loadSurvey, surveyOf, type SurveyTree } from '../../catalogue';

export interface AnswerRow {
  id: number;
  survey_id: number;
  survey_title: string;
  owner_id: number | null;
  instructor_id: number | null;
  person_id: number | null;
  user_name: string | null;
  person_organisation_id: number | null;
  organisation_id: number | null;
  data: SurveyData;
  locked: boolean;
  locked_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/** One stored item; uploaded file_data has been replaced by the stored file's file_id. */
export const SurveyAnswerItemView: z.ZodType<unknown> = z.lazy(() =>
  z.object({
    competence_id: z.number().int().describe('the question (a competence below the survey)'),
    value: z.union([scalar, z.array(scalar)]).optional(),
    file_id: z.number().int().optional().describe('stored file of this item; the bytes are at GET /api/files/[file_id]/content'),
    file_name: z.string().optional(),
    file_title: z.string().optional(),
    children: z.array(SurveyAnswerItemView).optional().describe('answers to the sub-questions of this question'),
  }),
);

export const SurveyAnswerView = z.object({
  surveyanswer_id: z.number().int(),
  survey_id: z.number().int().describe('the survey competence'),
  survey_title: z.string(),
  person_id: z.number().int().nullable().describe('the answering person; null when an organisation answered'),
  user_name: z.string().nullable(),
  organisation_id: z.number().int().nullable().describe('the answering organisation; null when a person answered'),
  locked: z.boolean().describe('a locked answer refuses PUT (errorcode 409)'),
  locked_at: isoDateTime().nullable(),
  created_at: isoDateTime(),
  updated_at: isoDateTime(),
  items: z.array(SurveyAnswerItemView).optional().describe('full view only: the answers, nested as the survey\'s questions'),
});

export function presentAnswer(r: AnswerRow, view: 'simple' | 'full'): Record<string, unknown> {
  const out: Record<string, unknown> = {
    surveyanswer_id: r.id,
    survey_id: r.survey_id,
    survey_title: r.survey_title,
    person_id: r.person_id,
    user_name: r.user_name,
    organisation_id: r.organisation_id,
    locked: r.locked,
    locked_at: r.locked_at,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
  if (view === 'full') out.items = r.data.items;
  return out;
}

export type Answerer = { personId: number; organisationId?: undefined } | { personId?: undefined; organisationId: number };

@injectable()
export class SurveyAnswersService {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
    @inject(PersonAccess) private readonly access: PersonAccess,
    @inject(FilesService) private readonly files: FilesService,
    @inject(ENV) private readonly env: Env,
  ) {}

  base(db: TenantDb = this.db) {
    return joinPersons(joinCompetences(db.table('survey_answers as a'), 'c', 'a.survey_id'), 'p', 'a.person_id', 'left')
      .select('a.*', 'c.title as survey_title', 'c.owner_id', 'c.instructor_id', 'p.user_name', 'p.organisation_id as person_organisation_id');
  }

  async find(id: number): Promise<AnswerRow> {
    const row = await this.base().where('a.id', id).first();
    if (!row) throw ApiError.notFound(`survey answer ${id}`);
    return row;
  }

  /** The person themself, their (or the answering organisation's) manager, or a superuser; a change never by a manager for their own manager. */
  async isAnswerSide(user: Principal, a: AnswerRow, change = false): Promise<boolean> {
    if (user.superuser) return true;
    if (a.person_id === null) return this.access.managesOrganisation(user, a.organisation_id);
    if (a.person_id === user.personId) return true;
    const person = { id: a.person_id, organisation_id: a.person_organisation_id };
    return change ? this.access.canActAsManagerOf(user, person) : this.access.managesOrganisation(user, a.person_organisation_id);
  }

  /** Owner or instructor of the survey competence: "admin for the event or competence". */
  isSurveyAdmin(user: Principal, s: { owner_id: number | null; instructor_id: number | null }): boolean {
    return s.owner_id === user.personId || s.instructor_id === user.personId;
  }

  async assertCanSee(user: Principal, a: AnswerRow): Promise<void> {
    if (this.isSurveyAdmin(user, a) || (await this.isAnswerSide(user, a))) return;
    throw ApiError.forbidden('not authorised to see this survey answer: only the person, their manager, the survey owner or a superuser may');
  }

  async create(user: Principal, who: Answerer, data: SurveyData, surveyId?: number): Promise<AnswerRow> {
    const sid = surveyId ?? (await surveyOf(this.db, data.items[0].competence_id));
    const tree = sid ? await loadSurvey(this.db, sid) : null;
    if (!tree) {
      if (surveyId) throw ApiError.notFound(`survey ${surveyId}`);
      throw ApiError.malformed('data[items][0][competence_id]', `competence ${data.items[0].competence_id} is not a question of any survey`);
    }
    validateItems(tree, data.items, true);
    const files = this.decodeFiles(data);
    const id = await this.uow.run(async (t) => {
      const tx = t.get(TENANT_DB);
      const [row] = await tx
        .table('survey_answers')
        .insert({ survey_id: tree.survey.id, person_id: who.personId ?? null, organisation_id: who.organisationId ?? null, data: JSON.stringify({ items: [] }), created_by: user.personId })
        .returning('id');
      const ownerId = who.personId ?? user.personId;
      for (const [it, bytes] of files) {
        it.file_id = await this.files.save({ ownerId, uploadedBy: user.personId, surveyAnswerId: row.id, title: it.file_title ?? it.file_name, fileName: it.file_name!, mimeType: 'application/octet-stream', data: bytes }, tx);
        delete it.file_data;
      }
      await tx.table('survey_answers').where({ id: row.id }).update({ data: JSON.stringify(data) });
      return row.id as number;
    });
    return this.find(id);
  }

  private decodeFiles(data: SurveyData): [SurveyData['items'][number], Buffer][] {
    const out: [SurveyData['items'][number], Buffer][] = [];
    for (const [it, path] of walkItems(data.items)) {
      if (it.file_data === undefined) continue;
      const bytes = Buffer.from(it.file_data.replace(/\s/g, ''), 'base64');
      if (bytes.length > this.env.UPLOAD_MAX_BYTES) {
        throw new ApiError(413, `${path}[file_data] too large: the limit is ${this.env.UPLOAD_MAX_BYTES} bytes`, { parameter: `${path}[file_data]` });
      }
      out.push([it, bytes]);
    }
    return out;
  }

  /** Replaces the items; a locked answer is refused (409). Files of earlier answers are kept. */
  async replace(user: Principal, id: number, data: SurveyData): Promise<AnswerRow> {
    const a = await this.find(id);
    if (!(await this.isAnswerSide(user, a, true))) throw ApiError.forbidden('not authorised to change this survey answer: only the person, their manager or a superuser may');
    const tree = (await loadSurvey(this.db, a.survey_id)) as SurveyTree;
    validateItems(tree, data.items, false);
    for (const [it, path] of walkItems(data.items)) {
      if (it.file_id === undefined) continue;
      const f = await this.db.table('files').where({ id: it.file_id, survey_answer_id: id }).first('id');
      if (!f) throw ApiError.malformed(`${path}[file_id]`, `file ${it.file_id} does not belong to survey answer ${id}`);
    }
    await this.uow.run(async (t) => {
      const tx = t.get(TENANT_DB);
      const row = await tx.table('survey_answers').where({ id }).forUpdate().first('locked');
      if (row.locked) {
        throw new ApiError(409, `survey answer ${id} is locked and cannot be changed; submit a new answer with POST /api/surveyanswer`);
      }
      await tx.table('survey_answers').where({ id }).update({ data: JSON.stringify(data), updated_at: tx.fn.now() });
    });
    return this.find(id);
  }

  /** Superuser, manager of the answering person/organisation, or owner/instructor of the survey. */
  async setLocked(user: Principal, id: number, locked: boolean): Promise<AnswerRow> {
    const a = await this.find(id);
    const allowed = user.superuser || this.isSurveyAdmin(user, a) || (a.person_id !== user.personId && (await this.isAnswerSide(user, a, true)));
    if (!allowed) throw ApiError.forbidden(`not authorised to ${locked ? 'lock' : 'unlock'} this survey answer: only a superuser, a manager or the survey's owner may`);
    await this.db
      .table('survey_answers')
      .where({ id })
      .update(locked ? { locked: true, locked_at: this.db.fn.now(), locked_by: user.personId } : { locked: false, locked_at: null, locked_by: null });
    return this.find(id);
  }
}
