import type { JobDefinition } from './job-definition';
import { deliverMessageJob } from '../../messaging/messages/deliver-message.job';

/** Every job the workers run. Names are permanent: queued jobs outlive deployments. */
export const ALL_JOBS: JobDefinition<any>[] = [deliverMessageJob];
