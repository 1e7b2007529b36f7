/**
 * The messaging module: messages and their deliveries, the outbox and its relay, the delivery job's
 * sending, the mail and SMS senders, the password mail and the notices other modules ask for
 * (new person's login, wait-list promotion, contact change); the expiry reminders' rows, texts and
 * schedule (reminders/) and signed webhooks (webhooks/, the kernel's OUTBOUND_EVENTS). Persons,
 * registrations and events are other modules': flows (src/flows/messages, reminders, passwords) hand
 * over what this module needs of them, and register the relay and the jobs that need them.
 */
import type { AppModule } from '../platform/module';
import { METRICS_SOURCES } from '../platform/metrics/metrics';
import { QUEUES } from '../platform/queue/job-definition';
import { TENANT_PURGERS } from '../platform/tenant-scope/tenant-purgers';
import { RELAY_TIMING, DEFAULT_RELAY_TIMING } from './outbox/relay-timing';
import { OutboxAge } from './outbox/outbox-age';
import { OutboxMetrics } from './outbox/outbox-metrics';
import { QueuedJobsPurger } from './outbox/queued-jobs-purger';
import { MailSender } from './messages/mail-sender';
import { MessageInsertBatcher } from './messages/message-insert-batcher';
import { SmsSender } from './messages/sms-sender';
import { MESSAGE_QUEUES } from './messages/message-queues';
import { registerReminders } from './reminders/reminders.registration';
import { registerWebhooks } from './webhooks/webhooks.registration';
import { PERSON_DATA } from '../platform/privacy/personal-data';
import { NotificationPreferenceData } from './notices/notification-preference-data';

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
    // the outbox relay and the delivery jobs: registerFlows (src/flows/messages), since they need people
    for (const queue of MESSAGE_QUEUES) c.register(QUEUES, { useValue: queue });
    c.register(METRICS_SOURCES, { useClass: OutboxMetrics });
    c.register(TENANT_PURGERS, { useClass: QueuedJobsPurger });
    registerReminders(c);
    registerWebhooks(c);
    // a person's notification preferences in their export and erasure
    c.register(PERSON_DATA, { useClass: NotificationPreferenceData });
  },
};

/** For flows, bound to the change's transaction (tx.get): the notice of a contact change. */
export { ContactChangeNotice, type ContactChange } from './messages/contact-change-notice';
/** Its pooled SMTP connections, closed with the container (container.ts). */
export { MailSender } from './messages/mail-sender';
/** Sending a message (SendMessageFlow), and reading messages with the names a flow joins on (ReadMessagesFlow). */
export { MessagesService, type MessageView, type SendMessageInput } from './messages/messages.service';
export { MessagesRepository, type MessageWithNames, type Medium, type DeliveryRow } from './messages/messages.repository';
export { RECIPIENT_COLUMNS, type Recipient } from './messages/recipients';
export type { RecipientsByUserName } from './messages/insert-to-user-name';
export { MessageOutput, presentMessage } from './messages/message.presenter';
/** The deliveries admin (its list gets the names from ListDeliveriesFlow). */
export { DeliveryAdminService, type DeliveryListRow, type DeliveryFilterState } from './messages/delivery-admin.service';
/** Sending deliveries and the relay, run by DeliverMessagesFlow and registered by src/flows/messages. */
export { DeliveryService, type DeliveryNeeds, type DeliveryOutcome, type BatchOutcome } from './messages/delivery.service';
export { DELIVER_BATCH_JOB, DELIVER_MESSAGE_JOB, DeliverBatch, DeliverMessage } from './messages/delivery-jobs';
export { TemporaryDeliveryError } from './messages/delivery-errors';
export { messageFailedData, type FailedDeliveryEvent, type FailedDeliveryRow } from './messages/message-failed-event';
export { OutboxRelays } from './outbox/outbox-relay';
export { OutboxSignal } from './outbox/outbox-signal';
/** The password mail (MailNewPasswordFlow). */
export { PasswordMailer, type PasswordMailReason } from './messages/password-mailer';
/** The notice of a seat given from the wait list (SignOnFlow, src/flows/sign-on). */
export { WaitlistPromotionNotice, type SeatPromotion } from './messages/waitlist-promotion-notice';
/** The notices of a cancelled event, to participants and their managers (EventCancellationFlow, src/flows/events). */
export { EventCancellationNotice, type EventCancellation, type CancelledPlace, type NoticeContact } from './messages/event-cancellation-notice';
export { CalendarNotice, type CalendarNoticeItem } from './messages/calendar-notice';
/** Messages in a person's export and erasure (MessagePersonData). */
export { MessageData, type MessageOfPerson } from './messages/message-personal-data';
/** The expiry reminders' rows, texts and scan job (SendExpiryRemindersFlow, src/flows/reminders). */
export {
  ExpiryRemindersRepository,
  reachedThreshold,
  withoutReminder,
  schemasWithReminderRows,
  type DueRegistration,
  type RegistrationColumns,
} from './reminders/expiry-reminders.repository';
export { reminderMessage, thresholdsDone } from './reminders/reminder-message';
export { REMINDER_SCAN_JOB } from './reminders/reminder-scheduler';
/** Report schedules (issue 38 item 4): their rows, periods and scan job; the reports and the scan are src/flows/reports'. */
export {
  ReportSchedulesRepository,
  timingOf,
  type ScheduleRow,
  type ScheduleFields,
  type ScheduledReport,
  type ScheduleFormat,
} from './report-schedules/report-schedules.repository';
export { tenantsWithReportSchedules } from './report-schedules/report-schedule-probe';
export { duePeriod, nextRun, periodOf, type Timing, type Period } from './report-schedules/schedule-period';
export { REPORT_SCHEDULE_SCAN_JOB } from './report-schedules/report-schedule-scheduler';
export { MessageAttachments, type NewAttachment } from './messages/message-attachments';
/** For its routes (src/routes/messaging): webhook endpoints. */
export { WebhooksService } from './webhooks/webhooks.service';
export type { AttemptRow, EndpointRow } from './webhooks/webhooks.repository';
export { TEST_EVENT_TYPE } from './webhooks/webhook-event-writer';
export { NOTICE_TYPES, SECURITY_NOTICE_TYPES, type NoticeType } from './notices/notice-types';
/** Persons' notification preferences (issue 39 item 5): the one reader every producer of a notice asks for its deliveries. */
export {
  NotificationPreferences,
  deliveriesFor,
  DEFAULT_PREFERENCE,
  PREFERENCE_MEDIA,
  type PreferenceView,
  type PreferenceMedium,
  type NoticeDelivery,
  type Reachable,
} from './notices/notification-preferences';
export { sendMediumOf } from './notices/notice-media';
/** A notice's words (issue 39): language, the tenant's override or the shipped text, HTML; through tx.get where written. */
export { NoticeRenderer, type RenderedNotice } from './notices/notice-renderer';
/** The tenant's overrides of the notices' texts (GET/PUT/DELETE /api/messagetemplates, preview). */
export { MessageTemplatesService, type TemplateInput, type TemplateListItem } from './notices/message-templates.service';
