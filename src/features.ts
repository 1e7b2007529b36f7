import { instanceCachingFactory, type DependencyContainer } from 'tsyringe';
import { join } from 'node:path';
import type { RouteDefinition } from './platform/http/define-route';
import { REDIS } from './platform/tokens';
import { AUTH_SCHEMES } from './platform/auth/auth-scheme';
import { ENV } from './platform/tokens';
import { configItemRoutes } from './tenancy/configitems/config-items.routes';
import { loginRoutes } from './identity/accounts/login.routes';
import { configItemAdminRoutes } from './tenancy/configitems/config-items-admin.routes';
import { SessionAuthScheme } from './identity/accounts/session-auth-scheme';
import { messageRoutes } from './messaging/messages/messages.routes';
import { deliveryAdminRoutes } from './messaging/messages/delivery-admin.routes';
import { configItemCheckRoutes } from './tenancy/configitems/config-item-checks.routes';
import { SendLoginNotifier } from './messaging/messages/send-login-notifier';
import { WaitlistPromotionNotifier } from './messaging/messages/waitlist-promotion-notifier';
import { WAITLIST_NOTIFIER } from './courses/personevents/waitlist-notifier';
import { NEW_PERSON_NOTIFIER } from './people/persons/new-person-notifier';
import { CONTACT_CHANGE_NOTIFIER } from './people/persons/contact-change-notifier';
import { ContactChangeNotice } from './messaging/messages/contact-change-notice';
import { forgotPasswordRoutes } from './messaging/messages/forgot-password.routes';
import { OutboxRelay, RELAY_TIMING, DEFAULT_RELAY_TIMING } from './messaging/messages/outbox-relay';
import { MailSender } from './messaging/messages/mail-sender';
import { SmsSender } from './messaging/messages/sms-sender';
import { BACKGROUND_WORKERS } from './platform/queue/worker-runtime';
import { QUEUE_PREFIX, QUEUE_REDIS, ROOT_CONTAINER } from './platform/queue/job-definition';
import { QueueRegistry } from './platform/queue/queue-registry';
import { JobWorkers, RETRY_POLICY, DEFAULT_RETRY_POLICY } from './platform/queue/job-worker';

import { signonRoutes } from './identity/sso/signon.routes';
import { SwtAuthScheme } from './identity/sso/swt-auth-scheme';

import { personRoutes } from './people/persons/persons.routes';
import { privacyRoutes } from './people/persons/privacy.routes';
import { organisationRoutes } from './people/organisations/organisations.routes';
import { competenceRoutes } from './catalogue/competences/competences.routes';
import { catalogueTreeRoutes } from './catalogue/competences/catalogue-tree.routes';
import { roleRoutes } from './catalogue/roles/roles.routes';
import { organisationalFunctionRoutes } from './catalogue/roles/organisational-functions.routes';
import { personCompetenceRoutes } from './catalogue/personcompetences/personcompetences.routes';
import { competenceLevelRoutes } from './catalogue/personcompetences/competence-level.routes';
import { changesRoutes } from './catalogue/changes/changes.routes';
import { eventRoutes } from './courses/events/events.routes';
import { personEventRoutes } from './courses/personevents/personevents.routes';
import { participantRoutes } from './courses/participants/participants.routes';
import { locationRoutes } from './courses/locations/locations.routes';
import { surveyAnswerRoutes } from './courses/surveyanswers/surveyanswers.routes';
import { fileRoutes } from './courses/files/files.routes';
import { FILE_STORE, LocalFileStore } from './courses/files/file-store';
import { auditLogRoutes } from './platform/audit/audit-log.routes';
import { FilesPurger } from './courses/files/files-purger';

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
import { RedisKeysPurger, TENANT_PURGERS } from './tenancy/tenants/tenant-purger';
import { QueuedJobsPurger } from './messaging/messages/queued-jobs-purger';
import { Metrics } from './platform/metrics/metrics';
import { PrincipalCache } from './platform/auth/principal-cache';
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
  c.registerSingleton(OutboxAge);
  c.registerSingleton(MailSender);
  c.registerSingleton(SmsSender);
  c.register(RETRY_POLICY, { useValue: DEFAULT_RETRY_POLICY });
  c.register(RELAY_TIMING, { useValue: DEFAULT_RELAY_TIMING });
  c.register(BACKGROUND_WORKERS, { useClass: OutboxRelay });
  c.register(BACKGROUND_WORKERS, { useClass: JobWorkers });
  c.register(NEW_PERSON_NOTIFIER, { useClass: SendLoginNotifier });
  c.register(WAITLIST_NOTIFIER, { useClass: WaitlistPromotionNotifier });
  c.register(CONTACT_CHANGE_NOTIFIER, { useClass: ContactChangeNotice });
  c.register(FILE_STORE, { useFactory: instanceCachingFactory((x) => new LocalFileStore(join(x.resolve(ENV).DATA_DIR, 'files'))) });
}
