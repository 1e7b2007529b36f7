import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { Paging } from '../../platform/http/param-types';
import { ApiError } from '../../platform/errors/api-error';
import type { SurveyData, SurveyItem } from './survey-data.schema';
import type { StoredAnswer } from './surveyanswer.presenter';

/** Free text may name anyone; numbers and booleans are what survey statistics need. */
function blankFreeText(items: SurveyItem[]): SurveyItem[] {
  return items.map(({ file_data, file_name, file_title, file_id, ...item }) => ({
    ...item,
    ...(typeof item.value === 'string' ? { value: '' } : {}),
    ...(Array.isArray(item.value) ? { value: item.value.map((v) => (typeof v === 'string' ? '' : v)) } : {}),
    ...(item.children ? { children: blankFreeText(item.children) } : {}),
  }));
}

/** Survey answers: given by a person or on behalf of an organisation, their items as JSON. */
@injectable()
export class SurveyAnswersRepository {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  /**
   * Answers as `a` (columns survey_id, person_id, organisation_id, ...): StoredAnswer rows. The
   * survey's title and owners and the answering person are other modules': a flow widens this
   * query with them (AnswerRow).
   */
  base(): Knex.QueryBuilder {
    return this.db.table('survey_answers as a').select('a.*');
  }

  /** The answer, read through `from` (base() or a flow's widening of it); 404 when missing. */
  async find<R extends StoredAnswer = StoredAnswer>(id: number, from: Knex.QueryBuilder = this.base()): Promise<R> {
    const row = await from.where('a.id', id).first();
    if (!row) throw ApiError.notFound(`survey answer ${id}`);
    return row;
  }

  /** A page of `q` (base() widened, narrowed by the caller), newest first. */
  page<R extends StoredAnswer>(q: Knex.QueryBuilder, paging: Paging): Promise<R[]> {
    return q
      .orderBy([
        { column: 'a.created_at', order: 'desc' },
        { column: 'a.id', order: 'desc' },
      ])
      .limit(paging.limit)
      .offset(paging.offset);
  }

  /** A new answer without items yet (its files need its id first). */
  async insert(row: { survey_id: number; person_id: number | null; organisation_id: number | null; created_by: number }): Promise<number> {
    const [created] = await this.db
      .table('survey_answers')
      .insert({ ...row, data: JSON.stringify({ items: [] }) })
      .returning('id');
    return created.id;
  }

  async setItems(id: number, data: SurveyData): Promise<void> {
    await this.db
      .table('survey_answers')
      .where({ id })
      .update({ data: JSON.stringify(data) });
  }

  /** Replaces the items unless the answer is locked (409); holds the row until the transaction ends. */
  async replaceItems(id: number, data: SurveyData): Promise<void> {
    const row = await this.db.table('survey_answers').where({ id }).forUpdate().first('locked');
    if (row.locked) {
      throw new ApiError(409, `survey answer ${id} is locked and cannot be changed; submit a new answer with POST /api/surveyanswer`);
    }
    await this.db
      .table('survey_answers')
      .where({ id })
      .update({ data: JSON.stringify(data), updated_at: this.db.fn.now() });
  }

  async setLocked(id: number, locked: boolean, by: number): Promise<void> {
    await this.db
      .table('survey_answers')
      .where({ id })
      .update(locked ? { locked: true, locked_at: this.db.fn.now(), locked_by: by } : { locked: false, locked_at: null, locked_by: null });
  }

  /** The person's answers as `sa` for their GDPR export, oldest first (a flow adds the survey's title). */
  ofPerson(personId: number): Knex.QueryBuilder {
    return this.db
      .table('survey_answers as sa')
      .where('sa.person_id', personId)
      .select('sa.id as surveyanswer_id', 'sa.survey_id', 'sa.data', 'sa.locked', 'sa.locked_at', 'sa.created_at', 'sa.updated_at')
      .orderBy('sa.id');
  }

  /** Erasure: the person's answers keep their numbers and booleans, their free texts and files are blanked. */
  async blankFreeTexts(personId: number): Promise<void> {
    const answers: { id: number; data: { items: SurveyItem[] } }[] = await this.db.table('survey_answers').where('person_id', personId).select('id', 'data');
    for (const a of answers) {
      await this.db
        .table('survey_answers')
        .where('id', a.id)
        .update({ data: JSON.stringify({ items: blankFreeText(a.data.items ?? []) }) });
    }
  }
}
