import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import { UnitOfWork } from '../../platform/tenant-scope/unit-of-work';
import type { Principal } from '../../platform/auth/principal';
import { OrganisationAuthoring, type OrganisationRow } from '../../people';
import { organisationUsageInCourses } from '../../courses';
import { organisationUsageInCatalogue } from '../../catalogue';

/**
 * DELETE /api/organisations/[organisation_id]: people's delete of an empty organisation, where
 * "empty" also asks the other modules what names it. Refused (409, naming each) while it has
 * members or sub-organisations (people), hosts events or has survey answers given for it (courses;
 * the events would lose their host, the answers would go with it), restricts competences or has
 * organisational functions (catalogue; a competence restricted to it alone would become valid
 * everywhere). Its manager assignments end with it. One transaction, the organisation row locked
 * first, so nothing is added to it between the check and the delete.
 */
@injectable()
export class DeleteOrganisationFlow {
  constructor(@inject(UnitOfWork) private readonly uow: UnitOfWork) {}

  async delete(user: Principal, id: number): Promise<OrganisationRow> {
    return this.uow.run(async (tx) =>
      tx.get(OrganisationAuthoring).delete(user, id, async () => {
        const db = tx.get(TENANT_DB);
        const [courses, catalogue] = [await organisationUsageInCourses(db, id), await organisationUsageInCatalogue(db, id)];
        return [
          ...(courses.hostedEvents ? [`${courses.hostedEvents} event(s) hosted by it`] : []),
          ...(courses.surveyAnswers ? [`${courses.surveyAnswers} survey answer(s) given for it`] : []),
          ...(catalogue.restrictedCompetences ? [`${catalogue.restrictedCompetences} competence(s) restricted to it`] : []),
          ...(catalogue.organisationalFunctions ? [`${catalogue.organisationalFunctions} organisational function(s)`] : []),
        ];
      }),
    );
  }
}
