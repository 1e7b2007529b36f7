import type { NextFunction, Request, Response } from 'express';
import type { DependencyContainer, InjectionToken } from 'tsyringe';
import type { Logger } from 'pino';
import { ApiError } from '../errors/api-error';
import type { RequestBody, RouteContext, RouteDefinition, RouteResult } from './define-route';
import { requireUser } from './define-route';
import { okEnvelope, selectFields } from './envelope';
import { IdempotentCall, type StoredAnswer } from './idempotency';
import { ENV, REDIS } from '../tokens';
import type { Env } from '../config/env';
import { zodErrorToApiError } from './zod-to-api-error';
import { PASSWORD_CHANGE_MESSAGES, type Principal } from '../auth/principal';
import type { Tenant } from '../tenant-scope/tenant';
import { requestLog, requestScope } from '../tenant-scope/request-scope';
import { routeMatcher } from './route-match';
import { firstSegment } from './middleware-series';
import { sendStream } from './send-stream';
import { SharedDataVersions } from '../cache/shared-data-versions';
import { PrincipalCache } from '../auth/principal-cache';
import { MAX_INPUT_DEPTH, checkInputValues } from './input-guard';
import { LIMIT_MAX } from './param-types';

/** What a group's routes run in: the tenant's request scope (/api), or no tenant at all (the operator API). */
export interface RouteScope {
  readonly tenant: Tenant | null;
  readonly container: DependencyContainer;
  readonly principal: Principal | null;
}

export interface MountOptions {
  /** The request's scope; default: the tenant's, opened by tenantMiddleware. */
  scope?: (req: Request) => RouteScope;
  /** How deep parsed values may nest (checkInputValues); default MAX_INPUT_DEPTH. */
  maxDepth?: number;
}

interface Mount {
  scope: (req: Request) => RouteScope;
  maxDepth: number;
}

/** Query, body and path parameters as one input; a route that takes its body whole gets query and path only. */
function mergedInput(req: Request, route: RouteDefinition): Record<string, unknown> {
  const body = !route.body && req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? req.body : {};
  return { ...(req.query as object), ...body, ...req.params };
}

function requestBody(req: Request): RequestBody {
  return { parsed: req.body, stream: (types) => (req.is(types as string[]) ? req : null) };
}

function noTenant(route: RouteDefinition): never {
  throw new Error(`${route.method.toUpperCase()} ${route.path} runs outside any tenant: ctx.tenant has none`);
}

/** Older clients ask for pages above the maximum; they get LIMIT_MAX and are told so. */
function clampNote(raw: Record<string, unknown>, parsed: unknown): string | undefined {
  const asked = Number(raw.limit);
  const served = (parsed as { limit?: unknown } | null)?.limit;
  if (served === LIMIT_MAX && asked > LIMIT_MAX) return `limit ${asked} is above the maximum ${LIMIT_MAX}; served ${LIMIT_MAX}`;
  return undefined;
}

function withNote(result: RouteResult, note: string | undefined): RouteResult {
  if (!note) return result;
  if ('items' in result) return { ...result, message: `${result.message ?? 'OK'}; ${note}` };
  if ('body' in result && typeof result.body.message === 'string') return { ...result, body: { ...result.body, message: `${result.body.message}; ${note}` } };
  return result;
}

function mustChangePassword(principal: Principal): ApiError {
  return new ApiError(418, `must change password: ${PASSWORD_CHANGE_MESSAGES[principal.mustChangePassword!]}`);
}

type Rendered = { redirect: string } | { stream: true } | { status: number; body: unknown };

function render(route: RouteDefinition, result: RouteResult, fields: string[] | undefined): Rendered {
  if ('redirect' in result) return { redirect: result.redirect };
  if ('stream' in result) return { stream: true };
  const status = result.status ?? (route.created ? 201 : 200);
  if ('body' in result) return { status, body: result.body };
  return { status, body: okEnvelope(route.resource, selectFields(result.items, fields), result.message) };
}

function send(res: Response, result: RouteResult, rendered: Rendered): void {
  for (const c of result.cookies ?? []) {
    if ('clear' in c) res.clearCookie(c.name, c.options);
    else res.cookie(c.name, c.value, c.options);
  }
  if ('redirect' in rendered) res.redirect(302, rendered.redirect);
  else if ('status' in rendered) res.status(rendered.status).json(rendered.body);
}

/**
 * Headers first, then the bytes; a failure before the first byte leaves for the error envelope, after
 * it cuts the connection. The handler writes into a pass-through, and the answer ends only once its
 * stream work has returned: what it does after its last byte (the export's audit entry) is done
 * before the client sees the end, so a client that reads on at once finds it.
 */
function replay(res: Response, answer: StoredAnswer): void {
  res
    .set({ ...answer.headers, 'Idempotent-Replayed': 'true' })
    .status(answer.status)
    .json(answer.body);
}

interface Prepared {
  parsed: unknown;
  target: unknown;
  resolve: <R>(token: InjectionToken<R>) => R;
}

/** Input validation (419/420), the 418 rule and the route's access rule: all before an Idempotency-Key is recorded. */
async function prepare(req: Request, route: RouteDefinition, scope: RouteScope, raw: Record<string, unknown>, maxDepth: number): Promise<Prepared> {
  const principal = scope.principal;
  const parsed = route.input.safeParse(raw);
  if (!parsed.success) throw zodErrorToApiError(parsed.error, raw);
  // Values decoded from JSON text parameters (person_data, survey data) meet the same check.
  checkInputValues(parsed.data, [], maxDepth);
  const open = route.duringPasswordChange;
  if (principal?.mustChangePassword && typeof open === 'function' && !open(parsed.data, principal)) throw mustChangePassword(principal);
  const resolve = <R>(token: InjectionToken<R>): R => scope.container.resolve(token);
  // Who may call: the route's rule, on the parsed input (it may name the person the call acts on).
  const target = await route.access.check(
    {
      principal,
      get user() {
        return requireUser(principal);
      },
      path: route.path,
      method: route.method,
      headers: req.headers,
      resolve,
    },
    parsed.data,
  );
  return { parsed: parsed.data, target, resolve };
}

async function run(
  req: Request,
  route: RouteDefinition,
  scope: RouteScope,
  raw: Record<string, unknown>,
  prepared: Prepared,
): Promise<{ result: RouteResult; rendered: Rendered }> {
  const principal = scope.principal;
  const { parsed, target, resolve } = prepared;
  const ctx: RouteContext = {
    get tenant() {
      return scope.tenant ?? noTenant(route);
    },
    principal,
    get user() {
      return requireUser(principal);
    },
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- pino-http's type allows an object; our request ids are strings
    requestId: String(req.id),
    ip: req.ip ?? '',
    get log() {
      return requestLog(req, (req as Request & { log: Logger }).log);
    },
    headers: req.headers,
    target,
    get body() {
      return requestBody(req);
    },
    resolve,
  };
  let result: RouteResult;
  try {
    result = await route.handler(ctx, parsed);
  } finally {
    // What this request changed must not be served from this process's cache to the next one.
    if (scope.tenant && route.method !== 'get' && !route.keepsCachedData) {
      const cache = scope.container.resolve(PrincipalCache);
      if (route.keepsAccounts) cache.forgetData(scope.tenant.schema);
      else cache.forgetSchema(scope.tenant.schema);
      // ... nor from another process's: the shared version moves before the answer leaves
      await scope.container.resolve(SharedDataVersions).bump(scope.tenant.schema);
    }
  }
  const fields = (parsed as { fields?: string[] })?.fields;
  result = withNote(result, clampNote(raw, parsed));
  return { result, rendered: render(route, result, fields) };
}

/**
 * Turns route definitions into express handlers: login, 418, input validation, access rule,
 * envelope. express tries a router's routes one by one, so the routes are grouped by their first
 * path segment (one matcher per resource, route-match.ts) and a request is handed to its group by a Map lookup:
 * GET /api/events no longer tests some 50 route patterns first.
 */
export function mountRoutes(routes: readonly RouteDefinition[], options: MountOptions = {}): (req: Request, res: Response, next: NextFunction) => void {
  const mount: Mount = { scope: options.scope ?? requestScope, maxDepth: options.maxDepth ?? MAX_INPUT_DEPTH };
  const groups = new Map<string, RouteDefinition[]>();
  for (const route of routes) {
    const segment = firstSegment(route.path);
    if (segment.startsWith(':')) throw new Error(`route ${route.path}: the first path segment must be fixed`);
    groups.set(segment, [...(groups.get(segment) ?? []), route]);
  }
  const routers = new Map([...groups].map(([segment, group]) => [segment, routeGroup(group, mount)]));
  return (req, res, next) => {
    const router = routers.get(firstSegment(req.path));
    if (router) router(req, res, next);
    else next();
  };
}

function routeGroup(routes: readonly RouteDefinition[], mount: Mount): ReturnType<typeof routeMatcher> {
  return routeMatcher(
    routes.map((route) => ({ method: route.method, path: route.path, handle: (req: Request, res: Response) => serve(route, req, res, mount) })),
  );
}

async function serve(route: RouteDefinition, req: Request, res: Response, mount: Mount): Promise<void> {
  const scope = mount.scope(req);
  const principal = scope.principal;
  if (route.access.login) requireUser(principal);
  if (principal?.mustChangePassword && !route.duringPasswordChange) throw mustChangePassword(principal);
  // Query and body were checked by inputGuard; path parameters are only known here.
  checkInputValues(req.params);
  const raw = mergedInput(req, route);
  // Keys are the tenant's and the caller's (the tenant API); outside a tenant no call is kept.
  const call =
    scope.tenant &&
    IdempotentCall.from(req, route, scope.tenant, principal, scope.container.resolve(REDIS), raw, scope.container.resolve<Env>(ENV).IDEMPOTENCY_MAX_KEYS);
  // A kept answer is the caller's own: replayed before any check (a DELETE's object may be gone by now).
  const kept = await call?.earlier();
  if (kept) return replay(res, kept);
  // A refused or malformed request records no key: the same key works once the input is fixed.
  const prepared = await prepare(req, route, scope, raw, mount.maxDepth);
  const earlier = await call?.begin();
  if (earlier) return replay(res, earlier);
  let result: RouteResult;
  let rendered: Rendered;
  try {
    ({ result, rendered } = await run(req, route, scope, raw, prepared));
  } catch (err) {
    // Only 2xx answers are kept: after a 4xx (a 409 of a state that may change) or a 5xx the next try runs.
    await call?.abandon();
    throw err;
  }
  if (call) {
    // A cookie must not be handed out twice (logout clears one): such answers run each time; nor is a
    // stream kept, nor a non-2xx answer. An answer that carries a secret (route.secretInAnswer: the
    // store is no vault) is not kept either, only that it was given: a replay is a 409 saying so.
    if (result.cookies?.length || !('status' in rendered) || rendered.status < 200 || rendered.status >= 300) await call.abandon();
    else if (route.secretInAnswer) await call.finishWithSecret(secretHint(route.secretInAnswer));
    else await call.finish(rendered);
  }
  if ('stream' in result) return sendStream(res, result);
  send(res, result, rendered);
}

function secretHint(flag: true | string): string {
  return flag === true ? 'rotate to see a new secret' : flag;
}
