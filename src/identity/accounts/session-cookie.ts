import type { Request } from 'express';
import { requestCookie } from '../../platform/http/lazy-cookies';

export const SESSION_COOKIE = 'tg-visit';

/** The session id the request's tg-visit cookie carries, or null (no cookie: no login, Anyone calls still work). */
export function sessionCookieOf(req: Request): string | null {
  const sessionId = requestCookie(req, SESSION_COOKIE);
  return typeof sessionId === 'string' && sessionId !== '' ? sessionId : null;
}
