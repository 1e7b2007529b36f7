import { inject, injectable } from 'tsyringe';
import type { Request } from 'express';
import type { AuthScheme } from '../../platform/auth/auth-scheme';
import type { RequestScope } from '../../platform/tenant-scope/request-scope';
import type { Principal } from '../../platform/auth/principal';
import { SessionStore, sessionCookieOf } from '../../identity';
import { PrincipalLoader } from './principal-loader';

/**
 * The tg-visit cookie: the session (identity) names the person, whose account (people, mostly
 * from PrincipalCache) becomes the principal. An unknown or expired cookie is simply no login
 * (Anyone calls still work).
 */
@injectable()
export class SessionAuthScheme implements AuthScheme {
  readonly name = 'session';
  constructor(@inject(SessionStore) private readonly sessions: SessionStore) {}

  async authenticate(req: Request, scope: RequestScope): Promise<Principal | null> {
    const sessionId = sessionCookieOf(req);
    if (sessionId === null) return null;
    const session = await this.sessions.touch(scope.tenant, sessionId);
    if (!session) return null;
    return scope.container.resolve(PrincipalLoader).byId(session.personId, 'session', sessionId);
  }
}
