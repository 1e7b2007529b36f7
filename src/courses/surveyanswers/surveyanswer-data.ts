import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenancy/tenant-db';
import type { Transaction } from '../../platform/tenancy/unit-of-work';
import type { PersonDataHolder, PersonKey } from '../../platform/privacy/personal-data';
import { joinCompetences } from '../../catalogue';
import type { SurveyItem } from './survey-data';

/** Free text may name anyone; numbers and booleans are what survey statistics need. */
function blankFreeText(items: SurveyItem[]): SurveyItem[] {
  return items.map(({ file_data, file_name, file_title, file_id, ...item }) => ({
    ...item,
    ...(typeof item.value === 'string' ? { value: '' } : {}),
    ...(Array.isArray(item.value) ? { value: item.value.map((v) => (typeof v === 'string' ? '' : v)) } : {}),
    ...(item.children ? { children: blankFreeText(item.children) } : {}),
  }));
}

/** Survey answers given by or for a person: exported with their items, their free texts blanked on erasure. */
@injectable()
export class SurveyAnswerData implements PersonDataHolder {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  async export(person: PersonKey) {
    const surveyanswers = await joinCompetences(this.db.table('survey_answers as sa'), 'c', 'sa.survey_id')
      .where('sa.person_id', person.id)
      .select('sa.id as surveyanswer_id', 'sa.survey_id', 'c.title as survey_title', 'sa.data', 'sa.locked', 'sa.locked_at', 'sa.created_at', 'sa.updated_at')
      .orderBy('sa.id');
    return { surveyanswers };
  }

  async erase(tx: Transaction, personId: number): Promise<void> {
    const answers: { id: number; data: { items: SurveyItem[] } }[] = await tx.get(TENANT_DB).table('survey_answers').where('person_id', personId).select('id', 'data');
    for (const a of answers) {
      await tx.get(TENANT_DB).table('survey_answers').where('id', a.id).update({ data: JSON.stringify({ items: blankFreeText(a.data.items ?? []) }) });
    }
  }
}
