import { afterAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import pino from 'pino';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { createRedisClient, type RedisClient } from '../../src/platform/redis/redis-client';

/**
 * The API's rate-limit script goes out in the same auto-pipeline batch as the session read.
 * ioredis 6.0 misaligns a batch's answers when a custom command is first defined while a batch is
 * open (redis/ioredis#1931): the product's client defines rate-limiter-flexible's script when it
 * is made, so limiters made later, mid-traffic, keep every answer in place.
 */
const clients: RedisClient[] = [];
afterAll(async () => {
  for (const c of clients) c.disconnect();
});

/** In one turn of the event loop: GETs open a batch, a new limiter is made, then counts and GETs join the batch. */
async function mixedBatch(client: RedisClient, tag: string) {
  await client.set(`${tag}:a`, 'A');
  await client.set(`${tag}:b`, 'B');
  const before = client.get(`${tag}:a`);
  const limiter = new RateLimiterRedis({ storeClient: client, keyPrefix: '', points: 10, duration: 60 });
  const counted = [limiter.consume(`${tag}:rl1`), limiter.consume(`${tag}:rl1`), limiter.consume(`${tag}:rl2`)];
  const after = client.get(`${tag}:b`);
  return Promise.all([before, Promise.all(counted), after]);
}

describe('rate-limit script in auto-pipelined batches', () => {
  it('a limiter made while a batch is open: every caller gets its own answer', async () => {
    const client = createRedisClient({ kind: 'single', url: inject('redisUrl') }, 'test', pino({ level: 'silent' }));
    clients.push(client);
    const tag = `rlbatch:${Date.now()}`;
    const [a, counted, b] = await mixedBatch(client, tag);
    expect(a).toBe('A');
    expect(b).toBe('B');
    expect(counted.map((r) => r.consumedPoints)).toEqual([1, 2, 1]);
    expect(counted.map((r) => r.remainingPoints)).toEqual([9, 8, 9]);
  });
});
