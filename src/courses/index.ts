/**
 * The courses module: events (course and module events, check_join's facts), sign-ons and the wait
 * list (personevents, orders), locations, survey answers and files. A data module: what needs
 * people, the catalogue or messaging is a flow (src/flows).
 */
import type { AppModule } from '../platform/module';
import { TENANT_PURGERS } from '../platform/tenant-scope/tenant-purgers';
import { PERSON_DATA } from '../platform/privacy/personal-data';
import { FilesPurger } from './files/files-purger';
import { Attendance } from './personevents/person-attendance';
import { FileData } from './files/file-personal-data';
import { CalendarFeedData } from './calendar/calendar-feed-data';

export const coursesModule: AppModule = {
  name: 'courses',
  register(c) {
    c.register(TENANT_PURGERS, { useClass: FilesPurger });
    c.register(PERSON_DATA, { useClass: Attendance });
    c.register(PERSON_DATA, { useClass: FileData });
    c.register(PERSON_DATA, { useClass: CalendarFeedData });
  },
};

/*
 * For its routes (src/routes/courses) and the flows above it (src/flows: sign-on, events,
 * participants, files, surveys). A query on its own tables (base(), participants(), ofPerson(),
 * eventPrerequisites) is for a flow to widen with another module's columns and hand back.
 */
/** Events: reads, views and filters; check_join's rule, its facts and the prerequisites of an event; those changed (the changes feed). */
export { EventsRepository, type EventRow } from './events/events.repository';
export { EventsService, type EventViewOptions } from './events/events.service';
export { EventView, isoDateTime, type DescribedEvent } from './events/event.presenter';
export { eventFilterShape, customAttributeFilters, applyEventFilters, type EventFilters, type ResolvedEventFilters } from './events/event-filters';
export { checkJoin, presentJoinCheck, type JoinCheck, type JoinClock, type JoinFacts, type JoinPerson } from './events/join-check';
export { JoinCheckRepository, eventPrerequisites, type MissingPrerequisitesQuery } from './events/join-check.repository';
export { EventChangesRepository } from './events/event-changes';
/** For the catalogue's authoring flow: whether events, prerequisites or survey answers use competences (a delete is then refused). */
export { competenceUsage, type CompetenceUsage } from './events/competence-usage';
/** For the delete of an empty organisation (src/flows/organisations): events it hosts, survey answers given for it. */
export { organisationUsageInCourses, type OrganisationUsageInCourses } from './events/organisation-usage';
/** Calendar authoring (issue 35): event and location writes, their input, the tombstones of deleted events. */
export { EventWrites, type EventColumns, type EndedPlace, type LocationClash } from './events/event-writes';
export { EventCreateData, EventUpdateData, eventDateTime, eventCustomAttributes } from './events/event-data.schema';
export { LocationWrites, LocationData, LocationUpdateData } from './locations/location-writes';
export { LocationAuthoring } from './locations/location-authoring';
/** Sign-ons, the wait list and orders; the participants of an event; who attends (person lists) and which events exist. */
export { PersonEventsRepository, type OrderRef, type PersonEventFilters } from './personevents/personevents.repository';
export { PersonEventView, presentPersonEvent, type PersonEventRow } from './personevents/person-event.presenter';
export { personsAttending } from './personevents/attendees';
/** Orders (issue 36): read by GET /api/orders through the sign-on flow (the holder's user name is people's). */
export { OrdersRepository, type OrderRow, type OrderFilters } from './personevents/orders.repository';
export { OrderView, presentOrder } from './personevents/order.presenter';
/** Results and attendance (issue 36): results of a sign-on at its course event and module events. */
export { EventResults, type EventResultRow, type EventResultValues, type ResultSignOn } from './personevents/event-results';
export { Attendance } from './personevents/person-attendance';
/** Locations. */
export { LocationsRepository, LocationView } from './locations/locations.repository';
/** Survey answers: their rows, view and the rules of their items. */
export { SurveyAnswersRepository } from './surveyanswers/surveyanswers.repository';
export { SurveyAnswerView, presentAnswer, type AnswerRow } from './surveyanswers/surveyanswer.presenter';
export { surveyData, validateItems, walkItems, type SurveyData } from './surveyanswers/survey-data.schema';
/** Files: stored bytes and rows, who may see them, their description. */
export { FilesService, FileView, presentFile, type FileRow } from './files/files.service';
/** Calendar invites and personal feeds (issue 39): the iCalendar text, its entries, SEQUENCE and the feed tokens. */
export { CalendarRepository } from './calendar/calendar.repository';
export {
  calendarText,
  calendarParty,
  calendarUid,
  type CalendarDocument,
  type CalendarEntry,
  type CalendarMethod,
  type CalendarParty,
} from './calendar/calendar-ics';
