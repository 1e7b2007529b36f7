import type { NextFunction, Request, Response } from 'express';
import { requestScope } from '../../platform/tenant-scope/request-scope';
import { PrincipalCache } from '../../platform/auth/principal-cache';
import type { ScimCaller } from '../../flows/scim/scim-auth';

export const SCIM_CONTENT_TYPE = 'application/scim+json; charset=utf-8';
const CALLER = Symbol('scimCaller');

export function setScimCaller(req: Request, caller: ScimCaller): void {
  (req as Request & { [CALLER]: ScimCaller })[CALLER] = caller;
}

/** A SCIM answer: application/scim+json (RFC 7644 §3.1). */
export function scimAnswer(res: Response, status: number, body?: unknown, headers: Record<string, string> = {}): void {
  res.status(status).set(headers);
  if (body === undefined) return void res.end();
  res.set('Content-Type', SCIM_CONTENT_TYPE).send(JSON.stringify(body));
}

/** The request's base URL for `meta.location` (https://tenant.host/scim/v2). */
export function scimBase(req: Request): string {
  return `${req.protocol}://${req.get('host')}${SCIM_PATH}`;
}

/** Where the SCIM router is mounted (app.ts). */
export const SCIM_PATH = '/scim/v2';

export function scimCaller(req: Request): ScimCaller {
  return (req as Request & { [CALLER]: ScimCaller })[CALLER];
}

/** A SCIM handler: errors go to the SCIM error answer; after a write this process's cached accounts and reads of the tenant are dropped, as after an /api write. */
export function scimHandler(fn: (req: Request, res: Response) => Promise<void>) {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      await fn(req, res);
    } catch (err) {
      next(err);
    } finally {
      if (req.method !== 'GET') {
        const scope = requestScope(req);
        scope.container.resolve(PrincipalCache).forgetSchema(scope.tenant.schema);
      }
    }
  };
}
