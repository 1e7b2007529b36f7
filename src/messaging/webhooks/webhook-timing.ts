import type { InjectionToken } from 'tsyringe';

export interface WebhookTiming {
  /** One attempt (connect, send, answer) may take this long. */
  timeoutMs: number;
  /** Wait before retry n (1-based); the last value repeats. */
  retryDelaysMs: readonly number[];
  /** A delivery is retried until it is this old, then failed. */
  maxAgeMs: number;
  /** An endpoint whose attempts have all failed for this long is disabled. */
  disableAfterMs: number;
  /** Events (with their deliveries and attempts) are kept this long. */
  keepMs: number;
}

const SECOND = 1000;
const HOUR = 3600 * SECOND;

export const DEFAULT_WEBHOOK_TIMING: WebhookTiming = {
  timeoutMs: 10 * SECOND,
  // about 14 attempts in 24 h: quick at first (a receiver restarting), then every 4 h
  retryDelaysMs: [5 * SECOND, 30 * SECOND, 2 * 60 * SECOND, 10 * 60 * SECOND, 30 * 60 * SECOND, HOUR, 2 * HOUR, 4 * HOUR],
  maxAgeMs: 24 * HOUR,
  disableAfterMs: 5 * 24 * HOUR,
  keepMs: 30 * 24 * HOUR,
};

export const WEBHOOK_TIMING: InjectionToken<WebhookTiming> = Symbol('WebhookTiming');

/**
 * Wait before the next attempt after `attempts` attempts of a delivery created at `createdAt`:
 * the schedule's step, but never past the delivery's last chance (createdAt + maxAgeMs), so the
 * final attempt comes at the deadline; null when that has passed.
 */
export function nextDelayMs(t: WebhookTiming, attempts: number, createdAt: Date, now = Date.now()): number | null {
  const left = createdAt.getTime() + t.maxAgeMs - now;
  if (left <= 0) return null;
  const step = t.retryDelaysMs[Math.min(Math.max(attempts, 1), t.retryDelaysMs.length) - 1];
  return Math.min(step, left);
}
