/**
 * The people module: persons, the organisation tree and who may act on whom. The lowest module:
 * every other one may import this face, it imports none of them (they plug in through the ports).
 */
import { Lifecycle } from 'tsyringe';
import type { AppModule } from '../platform/module';
import { PersonAccess } from './person-access';

export const peopleModule: AppModule = {
  name: 'people',
  register(c) {
    // One per request (or job): the route's access rule and the services share what it read of the tree.
    c.register(PersonAccess, { useClass: PersonAccess }, { lifecycle: Lifecycle.ContainerScoped });
    // People implements no port of another module: the others implement its ports (person-ports.ts).
  },
};

export type { PersonRow, AccountRow, PersonRef } from './person-row';
export { ACCOUNT_COLUMNS } from './person-row';
export { PersonDirectory, identificationBucket, type PersonColumn, type PersonKeyOf } from './person-directory';
export { passwordChangeReason, type PasswordState } from './persons/password-state';
export { PendingPasswords, PENDING_PASSWORD_HOURS, randomPassword, type PendingPasswordRow } from './persons/pending-passwords';
export { PersonAccess, TARGET_COLUMNS, type TargetPerson, type PersonRule } from './person-access';
export { policies, personNotFound, type DeferredTarget } from './person-policies';
export { PersonCredentials } from './persons/person-credentials';
export { organisationSubtree, personsInSubtree, organisationAncestors, organisationContext } from './organisations/organisation-tree';
export { joinPersons, joinOrganisations, userNameOf, personNamed, personsNamedIn, personsInOrganisations, organisationsNamed } from './person-queries';
export { OrganisationDirectory } from './organisations/organisation-directory';
export * from './person-ports';
export { NEW_PERSON_NOTIFIER, type NewPersonNotifier } from './persons/new-person-notifier';
export { CONTACT_CHANGE_NOTIFIER, type ContactChange, type ContactChangeNotifier } from './persons/contact-change-notifier';
/** For its routes (src/routes/people): persons, their export and erasure, organisations. */
export { PersonsService } from './persons/persons.service';
export { PersonView } from './persons/person.presenter';
export { PersonWriter } from './persons/person-writer.service';
export { PersonCreateData, PersonUpdateData } from './persons/person-data.schema';
export { NewPersonLogin } from './persons/new-person-login';
export { OwnViewCache } from './persons/own-view-cache';
export { PersonExporter, PersonExportView } from './persons/person-export';
export { PersonEraser } from './persons/person-erasure';
export { OrganisationsService } from './organisations/organisations.service';
export { OrganisationView } from './organisations/organisation.presenter';
