import type { Readable, Writable } from 'node:stream';
import type { InjectionToken } from 'tsyringe';
import type { z } from 'zod';
import type { Logger } from 'pino';
import type { CookieOptions } from 'express';
import type { Tenant } from '../tenant-scope/tenant';
import type { Principal } from '../auth/principal';
import { ApiError, type ErrorCode } from '../errors/api-error';
import type { AccessRule } from './access';

export type HttpMethod = 'get' | 'post' | 'put' | 'delete';

export interface RouteContext<T = unknown> {
  /** The request's tenant; a route mounted outside any tenant (the operator API) has none, and reading it throws. */
  readonly tenant: Tenant;
  principal: Principal | null;
  /** The logged-in person; throws 401 when there is none. */
  readonly user: Principal;
  requestId: string;
  ip: string;
  log: Logger;
  headers: Record<string, string | string[] | undefined>;
  /** What the route's access rule resolved on the way, e.g. the person the call acts on. */
  target: T;
  /** For a route that declares `body`: the body it takes whole (not merged into the input). */
  readonly body: RequestBody;
  resolve<R>(token: InjectionToken<R>): R;
}

export interface RequestBody {
  /** The parsed body (JSON or form) as one value; undefined without one. */
  readonly parsed: unknown;
  /** The request itself, unread, when its Content-Type is one of `types` (an upload the body parsers left alone); else null. */
  stream(types: readonly string[]): Readable | null;
}

/** A body or an answer by media type: the schema of its JSON (or form), or 'binary' for bytes. */
export interface MediaContent {
  description: string;
  content: Record<string, z.ZodType | 'binary'>;
}

export type CookieInstruction = { name: string; value: string; options: CookieOptions } | { name: string; clear: true; options: CookieOptions };

export type RouteResult =
  | { items: readonly object[]; message?: string; status?: number; cookies?: CookieInstruction[] }
  | { body: Record<string, unknown>; status?: number; cookies?: CookieInstruction[] }
  | { redirect: string; cookies?: CookieInstruction[] }
  /**
   * Bytes written as they are made (an archive download): `stream` writes into the answer after the
   * headers. An error before the first byte is still the error envelope; after it the connection is cut.
   */
  | { stream: (out: Writable) => Promise<unknown>; contentType: string; headers?: Record<string, string>; cookies?: undefined };

/**
 * Points of the caller's per-minute rate limit one call takes (api.rate_limit.per_minute; shown in
 * the OpenAPI document as x-rate-limit-cost): a number, or `base` with a `heavier` weight when the
 * parameter `when.param` is given (and, with `equals`, has that value), e.g. a list's view=full.
 */
export type RouteCost = number | { base: number; heavier: number; when: { param: string; equals?: string } };

/** Costs of the kernel's conventions, for routes to name. */
export const COSTS = {
  /** A paged list whose full view reads every object's details: 1, view=full 5. */
  fullViewList: { base: 1, heavier: 5, when: { param: 'view', equals: 'full' } },
  /** An export of everything about something (a person's GDPR export). */
  export: 10,
  /** A bulk import (a file of rows). */
  import: 20,
  /** A report or an aggregate over a whole organisation. */
  report: 10,
} as const satisfies Record<string, RouteCost>;

export interface RouteDefinition<S extends z.ZodType = z.ZodType, T = any> {
  method: HttpMethod;
  /** express path, e.g. /api/persons/:user_name */
  path: string;
  /** Who may call it (required: no route can forget it); checked before the handler and shown in the OpenAPI document. */
  access: AccessRule<T>;
  /**
   * Callable while the account must change its password (418): true (login, logout), or a test
   * of the parsed input for a route open to one request shape only (the password update itself).
   */
  duringPasswordChange?: boolean | ((input: any, user: Principal) => boolean);
  /** Name of the envelope attribute that holds the returned objects. */
  resource: string;
  summary: string;
  description?: string;
  /**
   * A write that changes nothing an account (Principal) is built from: no person, role or
   * manager row. After it, this process keeps its cached accounts of the tenant (other cached
   * reads of the tenant are dropped as after any write), so a burst of such writes does not read
   * the caller's account again on every request. Leave it out when in doubt.
   */
  keepsAccounts?: true;
  /**
   * A write to none of the tables cached answers are made of (tenant migration 130's
   * TENANT_DATA_TABLES) and to no account, e.g. a message and its outbox rows: after it, this
   * process drops nothing it cached of the tenant (implies keepsAccounts), so a burst of such
   * writes neither reads the caller's account again nor empties the tenant's cached reads.
   * A test should prove the route's writes announce no tenant_data_changed. Leave it out when in doubt.
   */
  keepsCachedData?: true;
  /**
   * A PUT or DELETE that takes an Idempotency-Key as every POST does (a repeat replays the first
   * answer): the calendar's authoring writes (issue 35), whose notices and webhooks a blind retry
   * must not send twice.
   */
  idempotencyKey?: true;
  /**
   * The answer carries a secret shown once (an API client's client_secret, a webhook's signing
   * secret, a built SWT token): it is never kept in the Idempotency-Key store (Redis); only that the
   * request was done is, so a repeat with the same key is a 409 "already done: ...; <hint>". The
   * hint says how to get a new secret (true: "rotate to see a new secret").
   */
  secretInAnswer?: true | string;
  /** Rate-limit points one call takes (default 1); see RouteCost and COSTS. */
  cost?: RouteCost;
  /** Error codes the route answers besides the usual ones (documented in the OpenAPI document). */
  errors?: ErrorCode[];
  input: S;
  /** Shape of one returned object (simple and full views alike); documents the 200 answer. */
  output?: z.ZodType;
  /** A creation: the answer is 201, not 200 (documented so). */
  created?: true;
  /**
   * The route may also answer 202 Accepted (work queued, its result to be asked for later) with the
   * same envelope: the handler's result says `status: 202`. The text says when (documented with the 202).
   */
  accepted?: string;
  /** Attributes the envelope holds besides `resource` (progress lines, a report); documented with the answer. */
  extras?: Record<string, z.ZodType>;
  /**
   * The body is one document or an upload, not parameters: it is not merged into the input (which
   * then holds the query's and the path's parameters), the handler reads it as ctx.body.
   */
  body?: MediaContent;
  /** A 200 answer that is no envelope (a download, a document to post back), documented in its place. */
  answer?: MediaContent;
  /** The success is a 302 (the handler returns `{ redirect }`): where to, documented instead of a 200 envelope. */
  redirect?: string;
  handler(ctx: RouteContext<T>, input: z.infer<S>): Promise<RouteResult>;
}

export function defineRoute<S extends z.ZodType, T>(def: RouteDefinition<S, T>): RouteDefinition<S, T> {
  return def;
}

export function requireUser(principal: Principal | null): Principal {
  if (!principal) throw ApiError.unauthenticated();
  return principal;
}

/** Routes mounted together under one base path; the OpenAPI document lists them group by group. */
export interface RouteGroup {
  /** Where they are mounted: /api, /platform. */
  readonly base: string;
  /**
   * true: the tenant API (the tenant from the Host header, login, rate limit, cross-site check,
   * Idempotency-Key); false: outside any tenant (the operator API, mountOperatorRoutes).
   */
  readonly tenant: boolean;
  /** One OpenAPI tag for all of them; default: each route's first path segment. */
  readonly tag?: string;
  readonly routes: readonly RouteDefinition<any>[];
}
