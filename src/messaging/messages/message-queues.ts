import type { QueueDefinition } from '../../platform/queue/job-definition';

/** The queues of a message by kind: password mail never waits behind a tenant's bulk send. */
export type MessageQueue = 'mail-priority' | 'messages';

/**
 * Password mail has a queue (and workers) of its own, so a tenant's bulk send can never hold it
 * up. Delivery jobs mostly wait on SMTP, Twilio and the database, so many may run at once.
 */
export const MESSAGE_QUEUES: readonly (QueueDefinition & { name: MessageQueue })[] = [
  { name: 'mail-priority', concurrency: 4 },
  { name: 'messages', concurrency: 8 },
];
