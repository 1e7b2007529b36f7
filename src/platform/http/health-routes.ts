import { Router } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { ENV, KNEX, REDIS } from '../tokens';
import { hasPlatformToken } from './require-platform-token';
import { QueueRegistry } from '../queue/queue-registry';

async function check(fn: () => Promise<unknown>, timeoutMs = 2000): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      fn(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), timeoutMs);
      }),
    ]);
    return 'ok';
  } catch (err) {
    return `unavailable: ${(err as Error).message}`;
  } finally {
    clearTimeout(timer);
  }
}

/** Liveness and readiness for process supervisors; no tenant needed. */
export function healthRoutes(container: DependencyContainer): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ valid: true, message: 'alive' });
  });
  router.get('/readyz', async (req, res) => {
    const [postgres, redis] = await Promise.all([check(() => container.resolve(KNEX).raw('select 1')), check(() => container.resolve(REDIS).ping())]);
    const ready = postgres === 'ok' && redis === 'ok';
    const status = { valid: ready, message: ready ? 'ready' : 'not ready', ...(ready ? {} : { errorcode: 503 }) };
    // Error texts and queue depths tell an attacker what runs inside; only the operator sees them.
    if (!hasPlatformToken(container.resolve(ENV), req.headers.authorization)) {
      res.status(ready ? 200 : 503).json(status);
      return;
    }
    // Queue depth and failures for operators; informative only, never a reason to be unready.
    let queues: unknown = 'unavailable';
    if (redis === 'ok') await check(async () => (queues = await container.resolve(QueueRegistry).counts()));
    res.status(ready ? 200 : 503).json({ ...status, checks: { postgres, redis }, queues });
  });
  return router;
}
