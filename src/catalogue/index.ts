/**
 * The catalogue module: competences and their groups, types, categories and attributes; roles,
 * requirements and organisational functions; registrations of competences (person competences),
 * the competence level and the changes feed. Imports the people face only.
 */
import type { AppModule } from '../platform/module';
import { PERSON_DATA, PERSON_QUALIFICATIONS, PERSON_ROLES } from '../people';
import { competenceRoutes } from './competences/competences.routes';
import { catalogueTreeRoutes } from './competences/catalogue-tree.routes';
import { roleRoutes } from './roles/roles.routes';
import { organisationalFunctionRoutes } from './roles/organisational-functions.routes';
import { personCompetenceRoutes } from './personcompetences/personcompetences.routes';
import { competenceLevelRoutes } from './personcompetences/competence-level.routes';
import { changesRoutes } from './changes/changes.routes';
import { PersonRolesStore } from './roles/person-roles';
import { Qualifications } from './personcompetences/person-qualifications';
import { PersonCompetenceData } from './personcompetences/personcompetence-data';

export const catalogueModule: AppModule = {
  name: 'catalogue',
  routes: [
    ...competenceRoutes,
    ...catalogueTreeRoutes,
    ...roleRoutes,
    ...organisationalFunctionRoutes,
    ...personCompetenceRoutes,
    ...competenceLevelRoutes,
    ...changesRoutes,
  ],
  register(c) {
    c.register(PERSON_ROLES, { useClass: PersonRolesStore });
    c.register(PERSON_QUALIFICATIONS, { useClass: Qualifications });
    c.register(PERSON_DATA, { useClass: PersonCompetenceData });
  },
};

export { EVENT_CHANGES, type EventChanges } from './changes/event-changes';
export { heldOn } from './personcompetences/personcompetences.repository';
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
