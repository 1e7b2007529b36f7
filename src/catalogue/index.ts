/**
 * The catalogue module: competences and their groups, types, categories and attributes; roles,
 * requirements and organisational functions; registrations of competences (person competences),
 * the competence level and the changes feed. A data module: persons and organisations are ids here;
 * what also needs the people module is a flow (src/flows/catalogue, registrations, changes).
 */
import type { AppModule } from '../platform/module';
import { TENANT_WARM_TABLES } from '../platform/db/catalog-warmup';

export const catalogueModule: AppModule = {
  name: 'catalogue',
  // Its part of the GDPR export and erasure is a flow's (src/flows/registrations).
  register(c) {
    // the roles a person's full view shows (GET /api/person): warmed at start (src/server.ts)
    c.register(TENANT_WARM_TABLES, { useValue: ['person_roles', 'roles'] });
  },
};

export { heldOn } from './personcompetences/personcompetences.repository';
/** For flows: the roles persons hold (tx.get(PersonRolesStore) to change them) and person-id sub-queries of holders. */
export { PersonRolesStore } from './roles/person-roles';
export { personsHoldingRoles, heldRolesJson } from './roles/role-holders';
export { Qualifications } from './personcompetences/person-qualifications';
export { personsHoldingCompetence } from './personcompetences/competence-holders';
export { findCompetence, surveyOf, loadSurvey, type CompetenceFacts, type SurveyTree } from './competences/competence-lookup';
export {
  joinCompetences,
  competencesInCategories,
  competencesWithAttributes,
  competenceGroupsNamed,
  heldRegistrations,
  expiringRegistrations,
  holdRegistration,
} from './competences/competence-queries';
/** For its flows and routes (src/flows, src/routes/catalogue): competences, groups and categories, roles, registrations, changes. */
export { COMPETENCE_TYPES, COMPETENCE_TYPE_IDS, COURSE_TEMPLATE_TYPES } from './competences/competence-types';
export type { CompetenceRow } from './competences/competence.row';
export { CompetencesRepository, type CompetenceFilter } from './competences/competences.repository';
export { CompetencePresenter, CompetenceView, personIdsOf } from './competences/competences.presenter';
export { customAttributeFilter } from './competences/custom-attribute-filter';
export { competenceGroupRows, competenceGroupPage, categoryRows, type CatalogueTreeRow } from './competences/catalogue-tree';
export { RolesRepository, presentRole, type RoleFilter, type RoleRow } from './roles/roles.repository';
export { OrganisationalFunctions } from './roles/organisational-functions.service';
/** For the delete of an empty organisation (src/flows/organisations): competences restricted to it, its organisational functions. */
export { organisationUsageInCatalogue, type OrganisationUsageInCatalogue } from './roles/organisation-usage';
export { PersonCompetenceList } from './personcompetences/personcompetence-list';
export { CompetenceStates, stateOf, type CompetenceState } from './personcompetences/competence-state';
export { PersonCompetenceRegistration, type RegistrationInput, type Standing } from './personcompetences/personcompetence-registration';
/** Registrations made by results (PUT /api/participants, issue 36): linked to the sign-on whose results made them. */
export { ResultRegistrations, passMarkOf, type ResultRegistrationRow, type ResultRegistrationInput } from './personcompetences/result-registrations';
export { PersonCompetenceView, presentPersonCompetence, registrarIdsOf } from './personcompetences/personcompetences.presenter';
export { competenceLevel } from './personcompetences/competence-level.query';
export { ChangesRepository } from './changes/changes.repository';
export { PersonCompetenceData, type RegistrationOfPerson } from './personcompetences/personcompetence-personal-data';
/** Authoring (issue 35): writing competences, groups, categories, roles and requirements; the rules of a competence's place and fields. */
export { CompetenceWriter, type CompetenceColumns, type CatalogueHolds } from './authoring/competence-writer';
export { CHILD_TYPES, isNestedType, placementProblem, misfitChildren, isWebUrl, mergeCustomAttributes } from './authoring/competence-rules';
export { CatalogueTreeAuthoring, type TreeKind, type TreeNodeData } from './authoring/catalogue-tree-authoring';
export { RoleAuthoring, type RoleData } from './authoring/role-authoring';
export { referencesStillThere } from './authoring/concurrent-change';
/** Reports (issue 38): the competence matrix's cells for many persons at once, by the rule of GET /api/personcompetences. */
export {
  CompetenceMatrix,
  cellStatus,
  personsRequiring,
  type MatrixQuery,
  type MatrixCell,
  type MatrixColumn,
  type CellStatus,
} from './personcompetences/competence-matrix.query';
/** Certificates (issue 38): a verification code per registration and the status a verifier sees. */
export {
  CertificatesRepository,
  certificateStatus,
  CERTIFICATE_CODE,
  type CertificateFacts,
  type CertificateRow,
  type CertificateStatus,
} from './certificates/certificates.repository';
