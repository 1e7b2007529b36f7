import { inject, injectable } from 'tsyringe';
import type { Transaction } from '../../platform/tenant-scope/unit-of-work';
import type { PersonDataHolder, PersonKey, ExportPage } from '../../platform/privacy/personal-data';
import { joinPersons } from '../../people';
import { PersonCompetenceData, type RegistrationOfPerson } from '../../catalogue';

/**
 * The registrations' part of a person's export and erasure (GDPR, PERSON_DATA): the catalogue's
 * registrations of the person, history too, with the registrar's user name (people's) joined on in
 * the same read; role administration and comments go on erasure.
 */
@injectable()
export class RegistrationPersonData implements PersonDataHolder {
  constructor(@inject(PersonCompetenceData) private readonly registrations: PersonCompetenceData) {}

  async export(person: PersonKey, page: ExportPage) {
    const rows: RegistrationOfPerson[] = await joinPersons(this.registrations.registrationsOf(person.id), 'rb', 'pc.registered_by', 'left')
      .select('rb.user_name as registered_by')
      .limit(page.limit)
      .offset(page.offset);
    return this.registrations.export(rows);
  }

  erase(tx: Transaction, personId: number): Promise<void> {
    return this.registrations.erase(tx, personId);
  }
}
