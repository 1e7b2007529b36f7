import { it } from 'vitest';
import { runChaos } from '../messaging/messages/chaos-harness';
import { check } from '../messaging/messages/chaos-check';

// `npm run chaos`: the full size (not part of npm test, see vitest.config.mts).
it('2,000 messages over 3 tenants survive a 30 s SMTP outage, two killed workers and a flushed queue Redis', { timeout: 1_800_000 }, async () => {
  check(
    'full',
    await runChaos({
      messages: 2_000,
      smtpOutageMs: 30_000,
      faults: ['smtp', 'kill-worker', 'flush-queue-redis', 'kill-worker'],
      drainTimeoutMs: 1_200_000,
      log: (m) => console.log(m),
    }),
  );
});
