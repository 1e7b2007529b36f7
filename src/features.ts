import { instanceCachingFactory, type DependencyContainer } from 'tsyringe';
import { join } from 'node:path';
import type { RouteDefinition } from './platform/http/define-route';
import { REDIS } from './platform/tokens';
import { AUTH_SCHEMES } from './platform/auth/auth-scheme';
import { ENV } from './platform/tokens';
import { configItemRoutes } from './configitems/config-items.routes';
import { loginRoutes } from './accounts/login.routes';
import { configItemAdminRoutes } from './configitems/config-items-admin.routes';
import { SessionAuthScheme } from './accounts/session-auth-scheme';
import { messageRoutes } from './messages/messages.routes';
import { deliveryAdminRoutes } from './messages/delivery-admin.routes';
import { configItemCheckRoutes } from './configitems/config-item-checks.routes';
import { SendLoginNotifier } from './messages/send-login-notifier';
import { WaitlistPromotionNotifier } from './messages/waitlist-promotion-notifier';
import { WAITLIST_NOTIFIER } from './personevents/waitlist-notifier';
import { NEW_PERSON_NOTIFIER } from './persons/new-person-notifier';
import { CONTACT_CHANGE_NOTIFIER } from './persons/contact-change-notifier';
import { ContactChangeNotice } from './messages/contact-change-notice';
import { forgotPasswordRoutes } from './messages/forgot-password.routes';
import { OutboxRelay, RELAY_TIMING, DEFAULT_RELAY_TIMING } from './messages/outbox-relay';
import { MailSender } from './messages/mail-sender';
import { SmsSender } from './messages/sms-sender';
import { BACKGROUND_WORKERS } from './platform/queue/worker-runtime';
import { QUEUE_PREFIX, QUEUE_REDIS, ROOT_CONTAINER } from './platform/queue/job-definition';
import { QueueRegistry } from './platform/queue/queue-registry';
import { JobWorkers, RETRY_POLICY, DEFAULT_RETRY_POLICY } from './platform/queue/job-worker';

import { signonRoutes } from './sso/signon.routes';
import { SwtAuthScheme } from './sso/swt-auth-scheme';

import { personRoutes } from './persons/persons.routes';
import { privacyRoutes } from './persons/privacy.routes';
import { organisationRoutes } from './organisations/organisations.routes';
import { competenceRoutes } from './competences/competences.routes';
import { catalogueTreeRoutes } from './competences/catalogue-tree.routes';
import { roleRoutes } from './roles/roles.routes';
import { organisationalFunctionRoutes } from './roles/organisational-functions.routes';
import { personCompetenceRoutes } from './personcompetences/personcompetences.routes';
import { competenceLevelRoutes } from './personcompetences/competence-level.routes';
import { changesRoutes } from './changes/changes.routes';
import { eventRoutes } from './events/events.routes';
import { personEventRoutes } from './personevents/personevents.routes';
import { participantRoutes } from './participants/participants.routes';
import { locationRoutes } from './locations/locations.routes';
import { surveyAnswerRoutes } from './surveyanswers/surveyanswers.routes';
import { fileRoutes } from './files/files.routes';
import { FILE_STORE, LocalFileStore } from './files/file-store';
import { auditLogRoutes } from './audit/audit-log.routes';
import { FilesPurger } from './files/files-purger';
import { ReminderScheduler } from './reminders/reminder-scheduler';
import { REMINDER_SCAN_OPTIONS, DEFAULT_REMINDER_SCAN_OPTIONS } from './reminders/reminder-scan';

/** Every feature's routes, in one place (paths are relative to /api). */
export const allRoutes: RouteDefinition<any>[] = [
  ...loginRoutes,
  ...signonRoutes,
  ...configItemCheckRoutes,
  ...configItemAdminRoutes,
  ...configItemRoutes,
  ...personRoutes,
  ...privacyRoutes,
  ...organisationRoutes,
  ...competenceRoutes,
  ...catalogueTreeRoutes,
  ...roleRoutes,
  ...organisationalFunctionRoutes,
  ...personCompetenceRoutes,
  ...competenceLevelRoutes,
  ...changesRoutes,
  ...deliveryAdminRoutes,
  ...messageRoutes,
  ...forgotPasswordRoutes,
  ...eventRoutes,
  ...personEventRoutes,
  ...participantRoutes,
  ...locationRoutes,
  ...surveyAnswerRoutes,
  ...fileRoutes,
  ...auditLogRoutes,
];
import { RedisKeysPurger, TENANT_PURGERS } from './tenants/tenant-purger';
import { QueuedJobsPurger } from './messages/queued-jobs-purger';
import { Metrics } from './platform/metrics/metrics';
import { PrincipalCache } from './platform/auth/principal-cache';
import { TenantDataCache } from './platform/cache/tenant-data-cache';
import { OutboxAge } from './platform/metrics/outbox-age';

/** Multi-registrations (auth schemes, background workers) and replaceable stores. */
export function registerFeatures(c: DependencyContainer): void {
  // An explicit Authorization: SWT header decides before any cookie the browser may also send.
  c.register(AUTH_SCHEMES, { useClass: SwtAuthScheme });
  c.register(AUTH_SCHEMES, { useClass: SessionAuthScheme });
  // Everything a deleted tenant keeps outside its schema: Redis keys, queued jobs, uploaded files.
  c.register(TENANT_PURGERS, { useClass: RedisKeysPurger });
  c.register(TENANT_PURGERS, { useClass: QueuedJobsPurger });
  c.register(TENANT_PURGERS, { useClass: FilesPurger });
  // Queues, pooled transports: one per container (tests build several containers in a process).
  c.register(ROOT_CONTAINER, { useValue: c });
  if (!c.isRegistered(QUEUE_REDIS)) c.register(QUEUE_REDIS, { useToken: REDIS });
  c.register(QUEUE_PREFIX, { useValue: 'bull' });
  c.registerSingleton(QueueRegistry);
  // Prometheus registry per container (never prom-client's global one).
  c.registerSingleton(Metrics);
  c.registerSingleton(PrincipalCache);
  c.registerSingleton(TenantDataCache);
  c.registerSingleton(OutboxAge);
  c.registerSingleton(MailSender);
  c.registerSingleton(SmsSender);
  c.register(RETRY_POLICY, { useValue: DEFAULT_RETRY_POLICY });
  c.register(RELAY_TIMING, { useValue: DEFAULT_RELAY_TIMING });
  c.register(BACKGROUND_WORKERS, { useClass: OutboxRelay });
  c.register(BACKGROUND_WORKERS, { useClass: JobWorkers });
  c.register(REMINDER_SCAN_OPTIONS, { useValue: DEFAULT_REMINDER_SCAN_OPTIONS });
  c.register(BACKGROUND_WORKERS, { useClass: ReminderScheduler });
  c.register(NEW_PERSON_NOTIFIER, { useClass: SendLoginNotifier });
  c.register(WAITLIST_NOTIFIER, { useClass: WaitlistPromotionNotifier });
  c.register(CONTACT_CHANGE_NOTIFIER, { useClass: ContactChangeNotice });
  c.register(FILE_STORE, { useFactory: instanceCachingFactory((x) => new LocalFileStore(join(x.resolve(ENV).DATA_DIR, 'files'))) });
}
