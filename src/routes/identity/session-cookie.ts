import type { RouteContext, CookieInstruction } from '../../platform/http/define-route';
import { ENV } from '../../platform/tokens';
import { SESSION_COOKIE, SessionStore } from '../../identity';

/** The tg-visit cookie as every login path (password, sign-on hash) sets it. */
export function sessionCookie(ctx: RouteContext, sessionId: string): CookieInstruction {
  return { name: SESSION_COOKIE, value: sessionId, options: { ...baseOptions(ctx), maxAge: ctx.resolve(SessionStore).maxSeconds * 1000 } };
}

/** Clearing must repeat the attributes (path, SameSite, Secure) or browsers keep the cookie. */
export function clearSessionCookie(ctx: RouteContext): CookieInstruction {
  return { name: SESSION_COOKIE, clear: true, options: baseOptions(ctx) };
}

function baseOptions(ctx: RouteContext) {
  const env = ctx.resolve(ENV);
  return { httpOnly: true, secure: env.COOKIE_SECURE, sameSite: env.COOKIE_SAMESITE, path: '/' };
}
