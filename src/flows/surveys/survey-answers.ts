import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import { ENV, TENANT_DB } from '../../platform/tokens';
import type { Env } from '../../platform/config/env';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import { UnitOfWork } from '../../platform/tenant-scope/unit-of-work';
import type { Principal } from '../../platform/auth/principal';
import type { Paging } from '../../platform/http/param-types';
import { ApiError } from '../../platform/errors/api-error';
import { FilesService, SurveyAnswersRepository, validateItems, walkItems, type AnswerRow, type SurveyData } from '../../courses';
import { joinCompetences, loadSurvey, surveyOf, type SurveyTree } from '../../catalogue';
import { joinPersons, PersonAccess } from '../../people';

export type Answerer = { personId: number; organisationId?: undefined } | { personId?: undefined; organisationId: number };

/** Whose answers a list holds: a person's, an organisation's (its own and its persons'), or everyone's. */
export type AnswersOf = { personId: number } | { organisationId: number } | 'everyone';

/**
 * Survey answers: courses' answers (with their files), checked against the survey's question tree
 * (catalogue) and shown with the survey's title and owners (catalogue) and the answering person
 * (people), who also decides who may see and change them (PersonAccess).
 */
@injectable()
export class SurveyAnswersFlow {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
    @inject(SurveyAnswersRepository) private readonly answers: SurveyAnswersRepository,
    @inject(PersonAccess) private readonly access: PersonAccess,
    @inject(FilesService) private readonly files: FilesService,
    @inject(ENV) private readonly env: Env,
  ) {}

  /** Answers (a) with their survey (catalogue, c) and the answering person (people, p): AnswerRow rows. */
  private described(): Knex.QueryBuilder {
    return joinPersons(joinCompetences(this.answers.base(), 'c', 'a.survey_id'), 'p', 'a.person_id', 'left').select(
      'c.title as survey_title',
      'c.owner_id',
      'c.instructor_id',
      'p.user_name',
      'p.organisation_id as person_organisation_id',
    );
  }

  find(id: number): Promise<AnswerRow> {
    return this.answers.find<AnswerRow>(id, this.described());
  }

  list(of: AnswersOf, surveyId: number | undefined, paging: Paging): Promise<AnswerRow[]> {
    const q = this.described();
    if (of !== 'everyone' && 'personId' in of) q.where('a.person_id', of.personId);
    // the organisation's own answers, and those of its persons
    else if (of !== 'everyone') q.where((w) => void w.where('a.organisation_id', of.organisationId).orWhere('p.organisation_id', of.organisationId));
    if (surveyId) q.where('a.survey_id', surveyId);
    return this.answers.page<AnswerRow>(q, paging);
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
    const id = await this.uow.run(async (tx) => {
      const answers = tx.get(SurveyAnswersRepository);
      const answerId = await answers.insert({
        survey_id: tree.survey.id,
        person_id: who.personId ?? null,
        organisation_id: who.organisationId ?? null,
        created_by: user.personId,
      });
      const ownerId = who.personId ?? user.personId;
      for (const [it, bytes] of files) {
        it.file_id = await tx.get(FilesService).save({
          ownerId,
          uploadedBy: user.personId,
          surveyAnswerId: answerId,
          title: it.file_title ?? it.file_name,
          fileName: it.file_name!,
          mimeType: 'application/octet-stream',
          data: bytes,
        });
        delete it.file_data;
      }
      await answers.setItems(answerId, data);
      return answerId;
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
    if (!(await this.isAnswerSide(user, a, true)))
      throw ApiError.forbidden('not authorised to change this survey answer: only the person, their manager or a superuser may');
    const tree = (await loadSurvey(this.db, a.survey_id)) as SurveyTree;
    validateItems(tree, data.items, false);
    for (const [it, path] of walkItems(data.items)) {
      if (it.file_id === undefined) continue;
      if (!(await this.files.isOfSurveyAnswer(it.file_id, id)))
        throw ApiError.malformed(`${path}[file_id]`, `file ${it.file_id} does not belong to survey answer ${id}`);
    }
    await this.uow.run(async (tx) => tx.get(SurveyAnswersRepository).replaceItems(id, data));
    return this.find(id);
  }

  /** Superuser, manager of the answering person/organisation, or owner/instructor of the survey. */
  async setLocked(user: Principal, id: number, locked: boolean): Promise<AnswerRow> {
    const a = await this.find(id);
    const allowed = user.superuser || this.isSurveyAdmin(user, a) || (a.person_id !== user.personId && (await this.isAnswerSide(user, a, true)));
    if (!allowed)
      throw ApiError.forbidden(`not authorised to ${locked ? 'lock' : 'unlock'} this survey answer: only a superuser, a manager or the survey's owner may`);
    await this.answers.setLocked(id, locked, user.personId);
    return this.find(id);
  }
}
