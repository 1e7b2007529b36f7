import type { IncomingHttpHeaders } from 'node:http';
import type { InjectionToken } from 'tsyringe';
import type { Principal } from '../auth/principal';
import { ApiError } from '../errors/api-error';
import { ENV } from '../tokens';
import { checkPlatformToken, platformTokenDigest } from './require-platform-token';

/** What an access rule sees of the request: the caller, the route and the request's tenant scope. */
export interface AccessCheck {
  readonly principal: Principal | null;
  /** The logged-in person; throws 401 when there is none. */
  readonly user: Principal;
  /** The route's express path: a parameter in it names the resource itself (e.g. /persons/:user_name). */
  readonly path: string;
  /** The route's method: a GET changes nothing, so what its check reads may come from a cache. */
  readonly method: 'get' | 'post' | 'put' | 'delete';
  /** The request's headers (the operator rule reads its bearer token); absent where no request is checked. */
  readonly headers?: IncomingHttpHeaders;
  resolve<T>(token: InjectionToken<T>): T;
}

/**
 * Who may call a route: required by defineRoute, checked by the route layer after the input is
 * parsed and before the handler, and shown in the OpenAPI document (x-access). A rule that
 * resolves something on the way (the person a call acts on) hands it to the handler as ctx.target;
 * handlers keep only the object-level decisions that need data (the recipient of a message, ...).
 */
export interface AccessRule<T = unknown> {
  /** The rule in words, as the spec's Security lines: "superuser, the person's manager, self". */
  readonly security: string;
  /** false: callable without login (login, forgot_password). */
  readonly login: boolean;
  /**
   * The OpenAPI security scheme of a rule that checks a credential of its own instead of a login
   * (the operator's bearer token); rules without one are the login's (cookie or SWT) or anyone's.
   */
  readonly scheme?: 'platformToken';
  /** Throws ApiError 401, 403 or 404; resolves to what the handler receives as ctx.target. */
  check(ctx: AccessCheck, input: any): Promise<T>;
}

const anyone: AccessRule<undefined> = { security: 'anyone, no login needed', login: false, check: async () => undefined };

const user: AccessRule<undefined> = {
  security: 'any logged-in person',
  login: true,
  async check(ctx) {
    void ctx.user;
    return undefined;
  },
};

/** Any logged-in person; the rest is decided on the object the call is about (`decided`, in words). */
function userThen(decided: string): AccessRule<undefined> {
  return { ...user, security: `any logged-in person, then decided on the object: ${decided}` };
}

/** Superusers only; `action` completes "not authorised to ...". */
function superuser(action: string): AccessRule<undefined> {
  return {
    security: 'superuser',
    login: true,
    async check(ctx) {
      if (!ctx.user.superuser) throw ApiError.forbidden(`not authorised to ${action}: superusers only`);
      return undefined;
    },
  };
}

/**
 * The service operator: `Authorization: Bearer <PLATFORM_ADMIN_TOKEN>`, compared in constant time;
 * 401 without it or with a wrong one, 404 (the API does not exist) when no token is configured.
 * The operator API under /platform (outside any tenant) declares it; its mount also runs it before
 * a body is read (operator-routes.ts).
 */
const operator: AccessRule<undefined> = {
  security: 'operator only: Authorization: Bearer <PLATFORM_ADMIN_TOKEN>',
  login: false,
  scheme: 'platformToken',
  async check(ctx) {
    checkPlatformToken(platformTokenDigest(ctx.resolve(ENV)), ctx.headers?.authorization);
    return undefined;
  },
};

/** `rule` when the input asks for it (`condition`, in words), else any logged-in person. */
function when<T>(condition: string, applies: (input: any, user: Principal) => boolean, rule: AccessRule<T>): AccessRule<T | undefined> {
  return {
    security: `${condition}: ${rule.security}; otherwise any logged-in person`,
    login: true,
    check: (ctx, input) => (applies(input, ctx.user) ? rule.check(ctx, input) : Promise.resolve(undefined)),
  };
}

/** `first` when the input asks for it (`condition`, in words), else `second`. */
function either<A, B>(condition: string, applies: (input: any, user: Principal) => boolean, first: AccessRule<A>, second: AccessRule<B>): AccessRule<A | B> {
  return {
    security: `${condition}: ${first.security}; otherwise ${second.security}`,
    login: first.login || second.login,
    check: (ctx, input) => (applies(input, ctx.user) ? first.check(ctx, input) : second.check(ctx, input)),
  };
}

/** The kernel's rules; the people module adds those about persons and organisations (its `policies`). */
export const access = { anyone, user, userThen, superuser, operator, when, either };
