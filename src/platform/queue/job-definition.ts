import { UnrecoverableError } from 'bullmq';
import type { DependencyContainer, InjectionToken } from 'tsyringe';
import type { z } from 'zod';

/** The container that owns the pools; jobs open their tenant scope from it. */
export const ROOT_CONTAINER: InjectionToken<DependencyContainer> = Symbol('RootContainer');

/** The Redis of the queues and the outbox signal: the main Redis unless a deployment (or test) separates them. */
export const QUEUE_REDIS: InjectionToken<import('../redis/redis-client').RedisClient> = Symbol('QueueRedis');

/** Redis key prefix of the queues ('bull'); tests give each container its own. */
export const QUEUE_PREFIX: InjectionToken<string> = Symbol('QueuePrefix');

/** A BullMQ queue, registered (QUEUES) by the module whose jobs run on it. */
export interface QueueDefinition {
  name: string;
  /** Jobs run at once per worker process. */
  concurrency: number;
  /**
   * Fairness between tenants (jobs whose data carry `tenantId`): a tenant's share of this process's
   * slots. Past its share a tenant's job runs only while `slots` others stay free for other tenants;
   * else it is put back (delayed by `deferMs`, plus up to as much again at random), not run, so a
   * tenant whose jobs are slow (a tarpit webhook receiver) never holds all the slots.
   */
  tenantShare?: { slots: number; deferMs: number };
}

/** Every queue of the product; modules register theirs, as they do BACKGROUND_WORKERS. */
export const QUEUES: InjectionToken<QueueDefinition> = Symbol('Queues');

export interface JobAttempt {
  /** 1 for the first run. */
  number: number;
  max: number;
}

/**
 * A job is plain JSON with a permanent name, carrying the tenant and ids, never rows.
 * The producer validates through the same schema as the worker.
 */
export interface JobDefinition<S extends z.ZodType = z.ZodType> {
  name: string;
  schema: S;
  handle(root: DependencyContainer, data: z.infer<S>, attempt: JobAttempt): Promise<void>;
}

/**
 * The trace a job belongs to, carried in its data next to what its schema reads (the schema drops
 * it): `traceparent` (W3C) of the span that caused the job, its span's parent in the worker, and
 * `tracelinks`, other traces the job also works for (a batch of deliveries written by several
 * requests). Written only while tracing is on (src/platform/tracing).
 */
export interface JobTrace {
  traceparent?: string;
  tracelinks?: string[];
}

/** Every job the workers run, registered by the module that defines it. Names are permanent: queued jobs outlive deployments. */
export const JOBS: InjectionToken<JobDefinition> = Symbol('Jobs');

export function defineJob<S extends z.ZodType>(name: string, schema: S, handle: JobDefinition<S>['handle']): JobDefinition<S> {
  return { name, schema, handle };
}

/** Thrown by a handler for a failure that retrying cannot fix (SMTP 5xx, Twilio 4xx). */
export class PermanentJobError extends UnrecoverableError {}

/**
 * Thrown by a handler that knows when it wants to run again (a webhook's retry schedule):
 * the job is retried after delayMs instead of the retry policy's backoff.
 */
export class RetryAfterError extends Error {
  constructor(
    message: string,
    readonly delayMs: number,
  ) {
    super(message);
  }
}

export interface RetryPolicy {
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/** Exponential backoff with a cap: base, 2*base, 4*base, ... never above maxDelayMs. */
export function backoffDelay(policy: RetryPolicy, attemptsMade: number): number {
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attemptsMade - 1));
}
