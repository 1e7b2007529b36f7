import { inject, injectable } from 'tsyringe';
import type { Transaction } from '../../platform/tenant-scope/unit-of-work';
import type { PersonDataHolder, PersonKey, ExportPage } from '../../platform/privacy/personal-data';
import { SurveyAnswersRepository } from '../../courses';
import { joinCompetences } from '../../catalogue';

/**
 * Survey answers given by or for a person (courses), for the GDPR export with their survey's title
 * (catalogue) and for erasure (free texts blanked). A PERSON_DATA holder: src/flows/index.ts registers it.
 */
@injectable()
export class SurveyAnswerData implements PersonDataHolder {
  constructor(@inject(SurveyAnswersRepository) private readonly answers: SurveyAnswersRepository) {}

  async export(person: PersonKey, page: ExportPage) {
    const rows: Record<string, unknown>[] = await joinCompetences(this.answers.ofPerson(person.id), 'c', 'sa.survey_id')
      .select('c.title as survey_title')
      .limit(page.limit)
      .offset(page.offset);
    // the section's columns in their documented order: the survey's title after its id
    const surveyanswers = rows.map(({ surveyanswer_id, survey_id, survey_title, ...rest }) => ({ surveyanswer_id, survey_id, survey_title, ...rest }));
    return { surveyanswers };
  }

  async erase(tx: Transaction, personId: number): Promise<void> {
    await tx.get(SurveyAnswersRepository).blankFreeTexts(personId);
  }
}
