import { inject, injectable } from 'tsyringe';
import type { Request } from 'express';
import type { AuthScheme } from '../../platform/auth/auth-scheme';
import type { RequestScope } from '../../platform/tenancy/request-scope';
import type { Principal } from '../../platform/auth/principal';
import { SessionStore } from './session-store';
import { PrincipalLoader } from './principal-loader';
import { requestCookie } from '../../platform/http/lazy-cookies';

export const SESSION_COOKIE = 'tg-visit';

/** The tg-visit cookie. An unknown or expired cookie is simply no login (Anyone calls still work). */
@injectable()
export class SessionAuthScheme implements AuthScheme {
  readonly name = 'session';
  constructor(@inject(SessionStore) private readonly sessions: SessionStore) {}

  async authenticate(req: Request, scope: RequestScope): Promise<Principal | null> {
    const sessionId = requestCookie(req, SESSION_COOKIE);
    if (typeof sessionId !== 'string' || sessionId === '') return null;
    const session = await this.sessions.touch(scope.tenant, sessionId);
    if (!session) return null;
    return scope.container.resolve(PrincipalLoader).byId(session.personId, 'session', sessionId);
  }
}
