import type { JobDefinition } from './job-definition';
import { deliverMessageJob } from '../../messages/deliver-message.job';
import { reminderScanJob } from '../../reminders/reminder-scan.job';
import { deliverWebhookJob } from '../../webhooks/deliver-webhook.job';

/** Every job the workers run. Names are permanent: queued jobs outlive deployments. */
export const ALL_JOBS: JobDefinition<any>[] = [deliverMessageJob, reminderScanJob, deliverWebhookJob];
