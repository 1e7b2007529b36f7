import type { DependencyContainer, InjectionToken } from 'tsyringe';
import type { z } from 'zod';
import type { Logger } from 'pino';
import type { CookieOptions } from 'express';
import type { Tenant } from '../tenancy/tenant';
import type { Principal } from '../auth/principal';
import { ApiError, type ErrorCode } from '../errors/api-error';

export type HttpMethod = 'get' | 'post' | 'put' | 'delete';

/**
 * Who may call a route at all; finer rules (self, manager, superuser) are checked by the
 * service against the object. Required by the type, so no route can forget it.
 *  - anyone: no login needed
 *  - user: any logged-in person
 */
export type RouteAccess = 'anyone' | 'user';

export interface RouteContext {
  tenant: Tenant;
  principal: Principal | null;
  /** The logged-in person; throws 401 when there is none. */
  readonly user: Principal;
  requestId: string;
  ip: string;
  log: Logger;
  headers: Record<string, string | string[] | undefined>;
  resolve<T>(token: InjectionToken<T>): T;
  container: DependencyContainer;
}

export type CookieInstruction =
  | { name: string; value: string; options: CookieOptions }
  | { name: string; clear: true; options: CookieOptions };

export type RouteResult =
  | { items: readonly object[]; message?: string; status?: number; cookies?: CookieInstruction[] }
  | { body: Record<string, unknown>; status?: number; cookies?: CookieInstruction[] }
  | { redirect: string; cookies?: CookieInstruction[] };

export interface RouteDefinition<S extends z.ZodType = z.ZodType> {
  method: HttpMethod;
  /** express path, e.g. /api/persons/:user_name */
  path: string;
  access: RouteAccess;
  /** Callable while the account must change its password (login, logout, the password update). */
  duringPasswordChange?: boolean;
  /** Name of the envelope attribute that holds the returned objects. */
  resource: string;
  summary: string;
  description?: string;
  /** Error codes the route answers besides the usual ones (documented in the OpenAPI document). */
  errors?: ErrorCode[];
  input: S;
  /** Shape of one returned object (simple and full views alike); documents the 200 answer. */
  output?: z.ZodType;
  handler(ctx: RouteContext, input: z.infer<S>): Promise<RouteResult>;
}

export function defineRoute<S extends z.ZodType>(def: RouteDefinition<S>): RouteDefinition<S> {
  return def;
}

export function requireUser(principal: Principal | null): Principal {
  if (!principal) throw ApiError.unauthenticated();
  return principal;
}
