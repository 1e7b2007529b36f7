import { describe, expect, it } from 'vitest';
import { loadEnv } from '../../src/platform/config/env';
import { parseClusterNodes, redisTargets } from '../../src/platform/redis/redis-target';

describe('REDIS_CLUSTER_NODES and QUEUE_REDIS_CLUSTER_NODES', () => {
  it('take host:port lists, IPv6 in brackets, and redis:// or rediss:// entries whose credentials and TLS apply to every node', () => {
    expect(parseClusterNodes(' 10.0.0.1:7000, redis-b.internal:7001 ,[::1]:7002')).toEqual({
      kind: 'cluster',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: 'redis-b.internal', port: 7001 },
        { host: '::1', port: 7002 },
      ],
      redisOptions: {},
    });
    expect(parseClusterNodes('rediss://app:s%40cret@10.0.0.1:7000,10.0.0.2:7000')).toEqual({
      kind: 'cluster',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7000 },
      ],
      redisOptions: { username: 'app', password: 's@cret', tls: {} },
    });
  });

  it('refuse what is not a node list, naming the variable', () => {
    for (const bad of ['10.0.0.1', '10.0.0.1:0', 'http://10.0.0.1:7000', '10.0.0.1:7000/2', ',', 'a b:7000']) {
      expect(() => loadEnv({ REDIS_CLUSTER_NODES: bad }), bad).toThrow(/REDIS_CLUSTER_NODES: must be a comma-separated list of host:port/);
    }
    expect(() => loadEnv({ QUEUE_REDIS_CLUSTER_NODES: 'nope' })).toThrow(/QUEUE_REDIS_CLUSTER_NODES/);
  });

  it('win over REDIS_URL and QUEUE_REDIS_URL; without them the URLs decide, and the queues default to the first Redis', () => {
    const both = loadEnv({ REDIS_CLUSTER_NODES: '127.0.0.1:7000', QUEUE_REDIS_CLUSTER_NODES: '127.0.0.1:8000', QUEUE_REDIS_URL: 'redis://q:6379' });
    expect(redisTargets(both, 'redis://r:6379')).toMatchObject({
      main: { kind: 'cluster', nodes: [{ port: 7000 }] },
      queues: { kind: 'cluster', nodes: [{ port: 8000 }] },
    });
    expect(redisTargets(loadEnv({ QUEUE_REDIS_URL: 'redis://q:6379' }), 'redis://r:6379')).toEqual({
      main: { kind: 'single', url: 'redis://r:6379' },
      queues: { kind: 'single', url: 'redis://q:6379' },
    });
    expect(redisTargets(loadEnv({}), 'redis://r:6379').queues).toBeNull();
    expect(() => redisTargets(loadEnv({}), undefined)).toThrow(/REDIS_CLUSTER_NODES nor REDIS_URL/);
  });
});
