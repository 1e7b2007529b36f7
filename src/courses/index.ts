/**
 * The courses module: events (course and module events, check_join), sign-on and the wait list
 * (personevents, orders), participants, locations, survey answers and files. Imports the people
 * and catalogue faces.
 */
import { join } from 'node:path';
import { instanceCachingFactory } from 'tsyringe';
import type { AppModule } from '../platform/module';
import { ENV } from '../platform/tokens';
import { TENANT_PURGERS } from '../platform/tenancy/tenant-purgers';
import { PERSON_ATTENDANCE, PERSON_DATA } from '../people';
import { eventRoutes } from './events/events.routes';
import { personEventRoutes } from './personevents/personevents.routes';
import { participantRoutes } from './participants/participants.routes';
import { locationRoutes } from './locations/locations.routes';
import { surveyAnswerRoutes } from './surveyanswers/surveyanswers.routes';
import { fileRoutes } from './files/files.routes';
import { FILE_STORE, LocalFileStore } from './files/file-store';
import { FilesPurger } from './files/files-purger';
import { Attendance } from './personevents/person-attendance';
import { SurveyAnswerData } from './surveyanswers/surveyanswer-data';
import { FileData } from './files/file-data';
import { EVENT_CHANGES } from '../catalogue';
import { EventChangesRepository } from './events/event-changes';

export const coursesModule: AppModule = {
  name: 'courses',
  routes: [...eventRoutes, ...personEventRoutes, ...participantRoutes, ...locationRoutes, ...surveyAnswerRoutes, ...fileRoutes],
  register(c) {
    c.register(FILE_STORE, { useFactory: instanceCachingFactory((x) => new LocalFileStore(join(x.resolve(ENV).DATA_DIR, 'files'))) });
    c.register(TENANT_PURGERS, { useClass: FilesPurger });
    c.register(PERSON_ATTENDANCE, { useClass: Attendance });
    c.register(PERSON_DATA, { useClass: Attendance });
    c.register(PERSON_DATA, { useClass: SurveyAnswerData });
    c.register(PERSON_DATA, { useClass: FileData });
    c.register(EVENT_CHANGES, { useClass: EventChangesRepository });
  },
};

export { WAITLIST_NOTIFIER, type WaitlistNotifier, type Promotion } from './personevents/waitlist-notifier';
export { FILE_STORE, type FileStore } from './files/file-store';
/** Multipart upload and raw download of files, mounted before the routes (see app.ts). */
export { filesHttp } from './files/files.http';
