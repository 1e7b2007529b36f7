import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Env } from '../config/env';
import { ApiError } from '../errors/api-error';

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** Whether an Authorization header carries the operator token (false when none is configured). */
export function hasPlatformToken(env: Pick<Env, 'PLATFORM_ADMIN_TOKEN'>, header: string | undefined): boolean {
  if (!env.PLATFORM_ADMIN_TOKEN) return false;
  const match = BEARER.exec(header ?? '');
  return !!match && timingSafeEqual(digest(match[1]), digest(env.PLATFORM_ADMIN_TOKEN));
}

/**
 * The operator's check: `Authorization: Bearer <PLATFORM_ADMIN_TOKEN>`. Without a configured token
 * the operator API does not exist (404); no or a wrong token is a 401. Both sides are hashed
 * first, so the comparison is constant-time whatever the length of the guess. `expected` is the
 * digest of the configured token (platformTokenDigest), null when none is set.
 */
export function checkPlatformToken(expected: Buffer | null, header: string | undefined): void {
  if (!expected) throw new ApiError(404, 'operator API disabled (PLATFORM_ADMIN_TOKEN is not set)');
  const match = BEARER.exec(header ?? '');
  if (!match) throw new ApiError(401, 'operator token required: send Authorization: Bearer <PLATFORM_ADMIN_TOKEN>');
  if (!timingSafeEqual(digest(match[1]), expected)) throw new ApiError(401, 'wrong operator token');
}

export function platformTokenDigest(env: Pick<Env, 'PLATFORM_ADMIN_TOKEN'>): Buffer | null {
  return env.PLATFORM_ADMIN_TOKEN ? digest(env.PLATFORM_ADMIN_TOKEN) : null;
}

/**
 * Guards an operator endpoint outside the route table (GET /metrics) with the operator's check.
 * The /platform routes declare `access: access.operator` (access.ts), which runs the same check.
 */
export function requirePlatformToken(env: Pick<Env, 'PLATFORM_ADMIN_TOKEN'>) {
  const expected = platformTokenDigest(env);
  return (req: Request, _res: Response, next: NextFunction) => {
    checkPlatformToken(expected, req.headers.authorization);
    next();
  };
}
