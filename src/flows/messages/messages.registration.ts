import type { DependencyContainer } from 'tsyringe';
import { BACKGROUND_WORKERS } from '../../platform/queue/worker-runtime';
import { JOBS } from '../../platform/queue/job-definition';
import { PERSON_DATA } from '../../platform/privacy/personal-data';
import { OutboxRelays } from '../../messaging';
import { deliverBatchJob, deliverMessageJob } from './deliver-messages';
import { recordMessageFailed } from './message-failed';
import { MessagePersonData } from './message-personal-data';

/**
 * What the messages' flows plug into the kernel: the outbox relay (its deliveries given up name their
 * recipient), the delivery jobs on messaging's queues, and the messages' part of a person's export and erasure.
 */
export function registerMessageFlows(c: DependencyContainer): void {
  c.register(BACKGROUND_WORKERS, { useFactory: (r) => r.resolve(OutboxRelays).create(recordMessageFailed) });
  c.register(JOBS, { useValue: deliverMessageJob });
  c.register(JOBS, { useValue: deliverBatchJob });
  c.register(PERSON_DATA, { useClass: MessagePersonData });
}
