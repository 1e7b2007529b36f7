import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Env } from '../config/env';
import { ApiError } from '../errors/api-error';

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/** Whether an Authorization header carries the operator token (false when none is configured). */
export function hasPlatformToken(env: Pick<Env, 'PLATFORM_ADMIN_TOKEN'>, header: string | undefined): boolean {
  if (!env.PLATFORM_ADMIN_TOKEN) return false;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return !!match && timingSafeEqual(digest(match[1]), digest(env.PLATFORM_ADMIN_TOKEN));
}

/**
 * Guards operator endpoints (/platform/*) with `Authorization: Bearer <PLATFORM_ADMIN_TOKEN>`.
 * Without a configured token the whole operator API does not exist (404). Both sides are
 * hashed first so the comparison is constant-time whatever the length of the guess.
 */
export function requirePlatformToken(env: Pick<Env, 'PLATFORM_ADMIN_TOKEN'>) {
  const expected = env.PLATFORM_ADMIN_TOKEN ? digest(env.PLATFORM_ADMIN_TOKEN) : null;
  return (req: Request, _res: Response, next: NextFunction) => {
    if (!expected) throw new ApiError(404, 'operator API disabled (PLATFORM_ADMIN_TOKEN is not set)');
    const header = req.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw new ApiError(401, 'operator token required: send Authorization: Bearer <PLATFORM_ADMIN_TOKEN>');
    if (!timingSafeEqual(digest(match[1]), expected)) throw new ApiError(401, 'wrong operator token');
    next();
  };
}
