/**
 * The people module: persons, the organisation tree and who may act on whom. A data module: it
 * imports only the kernel. What spans modules (a person's roles, the filters of GET /api/persons,
 * password mail, sessions) is a flow in src/flows/persons that imports this face and the others.
 */
import { Lifecycle } from 'tsyringe';
import type { AppModule } from '../platform/module';
import { PersonAccess } from './person-access';
import { TENANT_WARM_TABLES } from '../platform/db/catalog-warmup';

export const peopleModule: AppModule = {
  name: 'people',
  register(c) {
    // One per request (or job): the route's access rule and the services share what it read of the tree.
    c.register(PersonAccess, { useClass: PersonAccess }, { lifecycle: Lifecycle.ContainerScoped });
    // a tenant's first GET /api/person reads the account and the full view: warmed at start (src/server.ts)
    c.register(TENANT_WARM_TABLES, { useValue: ['persons', 'organisations', 'organisation_managers'] });
  },
};

export type { PersonRow, AccountRow, PersonRef, PersonKey, PersonState } from './person-row';
export { ACCOUNT_COLUMNS, PERSON_STATES } from './person-row';
export { PersonDirectory, identificationBucket, type PersonColumn, type PersonKeyOf } from './person-directory';
export { passwordChangeReason, type PasswordState } from './persons/password-state';
export { PendingPasswords, PENDING_PASSWORD_HOURS, randomPassword, type PendingPasswordRow } from './persons/pending-passwords';
export { PersonAccess, TARGET_COLUMNS, type TargetPerson, type PersonRule } from './person-access';
export { policies, personNotFound, personRow, type DeferredTarget, type PersonRead } from './person-policies';
export { PersonCredentials } from './persons/person-credentials';
export { organisationSubtree, personsInSubtree, organisationAncestors, organisationContext } from './organisations/organisation-tree';
export {
  joinPersons,
  joinOrganisations,
  userNameOf,
  personNamed,
  personsNamedIn,
  personsInOrganisations,
  organisationsNamed,
  inPersonState,
  deactivatedPersons,
} from './person-queries';
export { OrganisationDirectory } from './organisations/organisation-directory';
/** Persons' contacts and nearest managers, for notices about many persons (an event's cancellation). */
export { PersonManagers, type PersonContact } from './person-managers';
/** For the person flows (src/flows/persons): reading and writing persons, the rules of a change, the erasure's part. */
export { PersonsRepository, type PersonWithDetails } from './persons/persons.repository';
/** SCIM's filters on persons (src/flows/scim). */
export { CONDITION_COLUMNS, type PersonCondition, type ConditionColumn, type ConditionOp } from './persons/person-condition';
export { PersonListScope, type OrganisationScopeQuery } from './persons/person-list-scope';
/** For the reports (src/flows/reports, issue 38): persons in a report's scope, in list order, with their organisation's name. */
export { ReportPersons, type ReportPersonRow, type ReportOrganisation } from './persons/report-persons';
export type { PersonFilter } from './persons/persons.repository';
export {
  assertMayChange,
  assertMayChangeSuperadmin,
  changesOwnIdentityKey,
  assertBirthdateNotFuture,
  passwordToProve,
  assertNewPassword,
  updatedColumns,
  newPersonColumns,
  changedFields,
  type PasswordHelpers,
} from './persons/person-changes';
export { PersonChangeRecorder } from './persons/person-change-recorder';
export { PersonAnonymiser, erasedUserName } from './persons/person-anonymiser';
/** Deactivated accounts: the 401 that names it, for the login, session, sign-on hash and SWT checks. */
export { accountDeactivated, deactivationText, isDeactivated, personStateParam } from './persons/person-lifecycle';
/** For its routes (src/routes/people) and the flows: views and input of persons, organisations. */
export { Person, PersonFull, PersonView, presentPersonSimple, presentPersonFull } from './persons/person.presenter';
export { PersonCreateData, PersonUpdateData, PROFILE_COLUMNS } from './persons/person-data.schema';
export { OwnViewCache } from './persons/own-view-cache';
export { OrganisationsService } from './organisations/organisations.service';
export { OrganisationData, type OrganisationDataInput } from './organisations/organisation-data.schema';
/** For the bulk import (src/flows/imports): organisations by external id. */
export { OrganisationsRepository, type OrganisationRow } from './organisations/organisations.repository';
export { Organisation, OrganisationFull, OrganisationView } from './organisations/organisation.presenter';
/** Administering the tree (issue 36): PUT/DELETE of an organisation, its managers. */
export { OrganisationAuthoring, type OrganisationUpdateData } from './organisations/organisation-authoring';
export { OrganisationManagersRepository, type ManagerRow } from './organisations/organisation-managers.repository';
