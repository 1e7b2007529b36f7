import { it } from 'vitest';
import { runChaos } from './chaos-harness';
import { check } from './chaos-check';

it('300 messages over 3 tenants survive an SMTP outage, two killed workers and a flushed queue Redis', { timeout: 400_000 }, async () => {
  check(
    'short',
    await runChaos({
      messages: 300,
      smtpOutageMs: 4_000,
      faults: ['smtp', 'kill-worker', 'flush-queue-redis', 'kill-worker'],
      drainTimeoutMs: 240_000,
      log: (m) => console.log(m),
    }),
  );
});
