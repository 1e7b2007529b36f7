/**
 * The messaging module: messages and their deliveries (the outbox), the relay and the delivery
 * job, the mail and SMS senders, forgot_password and the notices other modules ask for (new
 * person's login, wait-list promotion, contact change); expiry reminders (reminders/) and signed
 * webhooks (webhooks/, the kernel's OUTBOUND_EVENTS). Imports the people, catalogue and courses faces.
 */
import type { AppModule } from '../platform/module';
import { BACKGROUND_WORKERS } from '../platform/queue/worker-runtime';
import { JOBS, QUEUES } from '../platform/queue/job-definition';
import { METRICS_SOURCES } from '../platform/metrics/metrics';
import { TENANT_PURGERS } from '../platform/tenancy/tenant-purgers';
import { PERSON_DATA } from '../platform/privacy/personal-data';
import { WAITLIST_NOTIFIER } from '../courses';
import { OutboxRelay } from './messages/outbox-relay';
import { RELAY_TIMING, DEFAULT_RELAY_TIMING } from './outbox/relay-timing';
import { OutboxAge } from './messages/outbox-age';
import { OutboxMetrics } from './messages/outbox-metrics';
import { MailSender } from './messages/mail-sender';
import { MessageInsertBatcher } from './messages/message-insert-batcher';
import { SmsSender } from './messages/sms-sender';
import { deliverMessageJob } from './messages/deliver-message.job';
import { deliverBatchJob } from './messages/deliver-batch.job';
import { MESSAGE_QUEUES } from './messages/message-queues';
import { QueuedJobsPurger } from './messages/queued-jobs-purger';
import { WaitlistPromotionNotifier } from './messages/waitlist-promotion-notifier';
import { MessageData } from './messages/message-data';
import { registerReminders } from './reminders/reminders.registration';
import { registerWebhooks } from './webhooks/webhooks.registration';

export const messagingModule: AppModule = {
  name: 'messaging',
  register(c) {
    // Pooled transports: one per container (tests build several containers in a process).
    c.registerSingleton(MailSender);
    c.registerSingleton(SmsSender);
    c.registerSingleton(OutboxAge);
    // one per container: its queues of a tenant's waiting messages are the process's
    c.registerSingleton(MessageInsertBatcher);
    c.register(RELAY_TIMING, { useValue: DEFAULT_RELAY_TIMING });
    c.register(BACKGROUND_WORKERS, { useClass: OutboxRelay });
    for (const queue of MESSAGE_QUEUES) c.register(QUEUES, { useValue: queue });
    c.register(JOBS, { useValue: deliverMessageJob });
    c.register(JOBS, { useValue: deliverBatchJob });
    c.register(METRICS_SOURCES, { useClass: OutboxMetrics });
    c.register(TENANT_PURGERS, { useClass: QueuedJobsPurger });
    c.register(WAITLIST_NOTIFIER, { useClass: WaitlistPromotionNotifier });
    c.register(PERSON_DATA, { useClass: MessageData });
    registerReminders(c);
    registerWebhooks(c);
  },
};

export { PasswordMailer, type PasswordMailReason } from './messages/password-mailer';
/** For flows, bound to the change's transaction (tx.get): a new person's login mail, the notice of a contact change. */
export { SendLoginNotifier } from './messages/send-login-notifier';
export { ContactChangeNotice, type ContactChange } from './messages/contact-change-notice';
/** Its pooled SMTP connections, closed with the container (container.ts). */
export { MailSender } from './messages/mail-sender';
/** For its routes (src/routes/messaging): messages, the deliveries admin, webhook endpoints. */
export { MessagesService } from './messages/messages.service';
export { MessageOutput, presentMessage } from './messages/message.presenter';
export type { DeliveryRow } from './messages/message-rows';
export { DeliveryAdminService, type DeliveryListRow } from './messages/delivery-admin.service';
export { WebhooksService } from './webhooks/webhooks.service';
export type { AttemptRow, EndpointRow } from './webhooks/webhooks.repository';
export { TEST_EVENT_TYPE } from './webhooks/webhook-event-writer';
