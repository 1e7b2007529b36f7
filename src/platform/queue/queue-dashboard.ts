import { timingSafeEqual, createHash } from 'node:crypto';
import { Router, type Request, type Response, type NextFunction } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { ENV } from '../tokens';
import { ApiError } from '../errors/api-error';
import { QueueRegistry } from './queue-registry';

export const QUEUE_DASHBOARD_PATH = '/platform/queues';

function sameToken(given: string, expected: string): boolean {
  // Hashing first gives equal lengths, so the comparison time says nothing about the token.
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/**
 * Bull Board for operators at /platform/queues, behind PLATFORM_ADMIN_TOKEN
 * (Authorization: Bearer <token>). Without the variable the dashboard does not exist (404).
 * Mounted at its path by the app (app.use(QUEUE_DASHBOARD_PATH, ...)), so other requests do not
 * walk through its router.
 */
export function queueDashboard(container: DependencyContainer): Router | null {
  const router = Router();
  const token = container.resolve(ENV).PLATFORM_ADMIN_TOKEN;
  if (!token) return null;
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(QUEUE_DASHBOARD_PATH);
  createBullBoard({
    queues: container
      .resolve(QueueRegistry)
      .all()
      .map((q) => new BullMQAdapter(q, { readOnlyMode: false })),
    serverAdapter,
  });
  router.use((req: Request, _res: Response, next: NextFunction) => {
    const header = req.headers.authorization ?? '';
    const given = header.startsWith('Bearer ') ? header.slice(7) : '';
    if (!given || !sameToken(given, token)) throw new ApiError(401, 'operator token required (Authorization: Bearer <PLATFORM_ADMIN_TOKEN>)');
    next();
  });
  router.use(serverAdapter.getRouter());
  return router;
}
