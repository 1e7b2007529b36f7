import type { DependencyContainer } from 'tsyringe';
import { QUEUE_PREFIX, QUEUE_REDIS } from '../queue/job-definition';

/**
 * Counters bumped by the worker process (a child process without an HTTP port) and shown
 * by the API's /metrics: kept in a Redis hash per counter, field = label values joined by
 * '|'. They survive restarts of either process; the key carries the queue prefix so test
 * containers with queues of their own never see each other's counts.
 */
/** e.g. 'job-final-failures' (the queue) or 'delivery-failures' (messaging). */
export type SharedCounterName = string;

function key(c: DependencyContainer, name: SharedCounterName): string {
  return `platform:metrics:${c.resolve(QUEUE_PREFIX)}:${name}`;
}

/** Best effort: a lost increment while Redis is away is not worth failing a job for. */
export async function bumpSharedCounter(c: DependencyContainer, name: SharedCounterName, labels: readonly string[]): Promise<void> {
  await c
    .resolve(QUEUE_REDIS)
    .hincrby(key(c, name), labels.join('|'), 1)
    .catch(() => undefined);
}

export async function readSharedCounter(c: DependencyContainer, name: SharedCounterName): Promise<Array<{ labels: string[]; value: number }>> {
  const all = await c.resolve(QUEUE_REDIS).hgetall(key(c, name));
  return Object.entries(all).map(([field, n]) => ({ labels: field.split('|'), value: Number(n) }));
}
