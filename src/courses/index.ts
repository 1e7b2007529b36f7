/**
 * The courses module: events (course and module events, check_join), sign-on and the wait list
 * (personevents, orders), participants, locations, survey answers and files. Imports the people
 * and catalogue faces.
 */
import type { AppModule } from '../platform/module';
import { TENANT_PURGERS } from '../platform/tenancy/tenant-purgers';
import { PERSON_DATA } from '../platform/privacy/personal-data';
import { FilesPurger } from './files/files-purger';
import { Attendance } from './personevents/person-attendance';
import { FileData } from './files/file-data';
import { EVENT_CHANGES } from '../catalogue';
import { EventChangesRepository } from './events/event-changes';

export const coursesModule: AppModule = {
  name: 'courses',
  register(c) {
    c.register(TENANT_PURGERS, { useClass: FilesPurger });
    c.register(PERSON_DATA, { useClass: Attendance });
    c.register(PERSON_DATA, { useClass: FileData });
    c.register(EVENT_CHANGES, { useClass: EventChangesRepository });
  },
};

/** For flows: who attends an event (a person-id sub-query) and which events exist. */
export { personsAttending } from './personevents/attendees';
export { Attendance } from './personevents/person-attendance';
/** For its routes (src/routes/courses): events and check_join, sign-on, participants, locations, survey answers, files. */
export { EventsService, type EventViewOptions } from './events/events.service';
export { EventsRepository, type EventRow } from './events/events.repository';
export { EventView, isoDateTime, type DescribedEvent } from './events/event.presenter';
export { eventFilterShape, customAttributeFilters, applyEventFilters, type EventFilters, type ResolvedEventFilters } from './events/event-filters';
export { checkJoin, presentJoinCheck, type JoinCheck, type JoinClock, type JoinFacts, type JoinPerson } from './events/join-check';
export { JoinCheckRepository, eventPrerequisites, type MissingPrerequisitesQuery } from './events/join-check.repository';
export { PersonEventsRepository, type OrderRef, type PersonEventFilters } from './personevents/personevents.repository';
export { PersonEventView, presentPersonEvent, type PersonEventRow } from './personevents/person-event.presenter';
export { LocationsRepository, LocationView } from './locations/locations.repository';
export { SurveyAnswersRepository } from './surveyanswers/surveyanswers.repository';
export { SurveyAnswerView, presentAnswer, type AnswerRow } from './surveyanswers/surveyanswer.presenter';
export { surveyData, validateItems, walkItems, type SurveyData } from './surveyanswers/survey-data';
export { FilesService, FileView, presentFile, type FileRow } from './files/files.service';
