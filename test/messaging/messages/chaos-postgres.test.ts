import { it } from 'vitest';
import { runChaos } from './chaos-harness';
import { check } from './chaos-check';

it('100 messages survive a PostgreSQL restart mid-send', { timeout: 400_000 }, async () => {
  check(
    'postgres restart',
    await runChaos({ messages: 100, smtpOutageMs: 0, faults: ['restart-postgres'], drainTimeoutMs: 240_000, log: (m) => console.log(m) }),
  );
});
