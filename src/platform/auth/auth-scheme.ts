import type { Request } from 'express';
import type { InjectionToken } from 'tsyringe';
import type { Principal } from './principal';
import type { RequestScope } from '../tenant-scope/request-scope';

/**
 * One way of proving who the caller is (session cookie, SWT header). Returns null when
 * the request carries none of its credentials; throws ApiError(401) when it carries
 * credentials that fail.
 */
export interface AuthScheme {
  readonly name: string;
  authenticate(req: Request, scope: RequestScope): Promise<Principal | null>;
}

export const AUTH_SCHEMES: InjectionToken<AuthScheme> = Symbol('AuthSchemes');
