import type { DependencyContainer } from 'tsyringe';
import type { RouteDefinition } from './platform/http/define-route';
import { REDIS } from './platform/tokens';
import { AUTH_SCHEMES } from './platform/auth/auth-scheme';
import { configItemRoutes } from './configitems/config-items.routes';
import { loginRoutes } from './accounts/login.routes';
import { SessionAuthScheme } from './accounts/session-auth-scheme';
import { messageRoutes } from './messages/messages.routes';
import { forgotPasswordRoutes } from './messages/forgot-password.routes';
import { OutboxRelay, RELAY_TIMING, DEFAULT_RELAY_TIMING } from './messages/outbox-relay';
import { MailSender } from './messages/mail-sender';
import { SmsSender } from './messages/sms-sender';
import { BACKGROUND_WORKERS } from './platform/queue/worker-runtime';
import { QUEUE_PREFIX, QUEUE_REDIS, ROOT_CONTAINER } from './platform/queue/job-definition';
import { QueueRegistry } from './platform/queue/queue-registry';
import { JobWorkers, RETRY_POLICY, DEFAULT_RETRY_POLICY } from './platform/queue/job-worker';

/** Every feature's routes, in one place (paths are relative to /api). */
export const allRoutes: RouteDefinition<any>[] = [...loginRoutes, ...configItemRoutes, ...messageRoutes, ...forgotPasswordRoutes];

/** Multi-registrations (auth schemes, background workers). */
export function registerFeatures(c: DependencyContainer): void {
  c.register(AUTH_SCHEMES, { useClass: SessionAuthScheme });
  // Queues, pooled transports: one per container (tests build several containers in a process).
  c.register(ROOT_CONTAINER, { useValue: c });
  c.register(QUEUE_REDIS, { useToken: REDIS });
  c.register(QUEUE_PREFIX, { useValue: 'bull' });
  c.registerSingleton(QueueRegistry);
  c.registerSingleton(MailSender);
  c.registerSingleton(SmsSender);
  c.register(RETRY_POLICY, { useValue: DEFAULT_RETRY_POLICY });
  c.register(RELAY_TIMING, { useValue: DEFAULT_RELAY_TIMING });
  c.register(BACKGROUND_WORKERS, { useClass: OutboxRelay });
  c.register(BACKGROUND_WORKERS, { useClass: JobWorkers });
}
