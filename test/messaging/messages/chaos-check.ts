import { expect } from 'vitest';
import type { ChaosFigures } from './chaos-harness';

// Short forms of `npm run chaos`: every message arrives; a duplicate is allowed but must be a resend.
export function check(name: string, f: ChaosFigures): void {
  console.log(
    `chaos (${name}): messages ${f.messages}, lost ${f.lost}, duplicates ${f.duplicates} (same Message-ID: ${f.duplicatesWithSameMessageId}), drained in ${f.drainSeconds.toFixed(1)} s`,
  );
  expect(f.lost).toBe(0);
  expect(f.duplicatesWithSameMessageId).toBe(f.duplicates);
}
