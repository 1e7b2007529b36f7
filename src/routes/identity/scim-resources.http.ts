import express, { type Request } from 'express';
import { requestLog, requestScope } from '../../platform/tenant-scope/request-scope';
import { SCIM_MAX_RESULTS, ScimError, listResponse, projectScimResource } from '../../identity';
import { ScimUsersFlow } from '../../flows/scim/scim-users';
import { ScimGroupsFlow } from '../../flows/scim/scim-groups';
import { scimAnswer, scimBase, scimCaller, scimHandler } from './scim-http-support';

function queryText(req: Request, name: string): string | undefined {
  const v = (req.query as Record<string, unknown>)[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw ScimError.invalidValue(`${name} must be given once, as text`);
  return v;
}

function queryInt(req: Request, name: string, fallback: number): number {
  const v = queryText(req, name);
  if (v === undefined || v === '') return fallback;
  if (!/^-?\d{1,9}$/.test(v)) throw ScimError.invalidValue(`${name} must be an integer`);
  return Number(v);
}

/** startIndex (1-based, below 1 read as 1) and count (default and most SCIM_MAX_RESULTS, below 0 read as 0), RFC 7644 §3.4.2.4. */
function paging(req: Request): { startIndex: number; count: number } {
  return { startIndex: Math.max(1, queryInt(req, 'startIndex', 1)), count: Math.min(SCIM_MAX_RESULTS, Math.max(0, queryInt(req, 'count', SCIM_MAX_RESULTS))) };
}

function projection(req: Request) {
  const attributes = queryText(req, 'attributes');
  const excluded = queryText(req, 'excludedAttributes');
  return (r: Record<string, unknown>) => projectScimResource(r, attributes, excluded);
}

/** Whether `members` is asked for (Entra ID reads groups with excludedAttributes=members: no holder query then). */
function wantsMembers(req: Request): boolean {
  const lower = (name: string) =>
    (queryText(req, name) ?? '')
      .toLowerCase()
      .split(',')
      .map((s) => s.trim().replace(/^urn:ietf:params:scim:schemas:core:2\.0:group:/, ''));
  if (queryText(req, 'attributes') !== undefined) return lower('attributes').includes('members');
  return !lower('excludedAttributes').includes('members');
}

const flow = <T>(req: Request, cls: new (...args: never[]) => T): T => requestScope(req).container.resolve(cls as never);

export function scimUsersRouter(): express.Router {
  const r = express.Router();
  r.get(
    '/',
    scimHandler(async (req, res) => {
      const page = paging(req);
      const { total, resources } = await flow(req, ScimUsersFlow).list({ filter: queryText(req, 'filter'), ...page }, scimBase(req));
      scimAnswer(res, 200, listResponse(resources.map(projection(req)), total, page.startIndex));
    }),
  );
  r.post(
    '/',
    scimHandler(async (req, res) => {
      const user = await flow(req, ScimUsersFlow).create(scimCaller(req), req.body, scimBase(req), requestLog(req, (req as Request & { log: never }).log));
      scimAnswer(res, 201, projection(req)(user), { Location: String((user.meta as { location: string }).location) });
    }),
  );
  r.get(
    '/:id',
    scimHandler(async (req, res) => {
      scimAnswer(res, 200, projection(req)(await flow(req, ScimUsersFlow).get(String(req.params.id), scimBase(req))));
    }),
  );
  r.put(
    '/:id',
    scimHandler(async (req, res) => {
      scimAnswer(
        res,
        200,
        projection(req)(await flow(req, ScimUsersFlow).replace(scimCaller(req), String(req.params.id), req.body, scimBase(req), req.ip ?? '')),
      );
    }),
  );
  r.patch(
    '/:id',
    scimHandler(async (req, res) => {
      scimAnswer(
        res,
        200,
        projection(req)(await flow(req, ScimUsersFlow).patch(scimCaller(req), String(req.params.id), req.body, scimBase(req), req.ip ?? '')),
      );
    }),
  );
  r.delete(
    '/:id',
    scimHandler(async (req, res) => {
      await flow(req, ScimUsersFlow).delete(scimCaller(req), String(req.params.id));
      scimAnswer(res, 204);
    }),
  );
  return r;
}

export function scimGroupsRouter(): express.Router {
  const r = express.Router();
  r.get(
    '/',
    scimHandler(async (req, res) => {
      const page = paging(req);
      const { total, resources } = await flow(req, ScimGroupsFlow).list(
        { filter: queryText(req, 'filter'), ...page, members: wantsMembers(req) },
        scimBase(req),
      );
      scimAnswer(res, 200, listResponse(resources.map(projection(req)), total, page.startIndex));
    }),
  );
  r.post(
    '/',
    scimHandler(async (req, res) => {
      const group = await flow(req, ScimGroupsFlow).create(scimCaller(req), req.body, scimBase(req));
      scimAnswer(res, 201, projection(req)(group), { Location: String((group.meta as { location: string }).location) });
    }),
  );
  r.get(
    '/:id',
    scimHandler(async (req, res) => {
      scimAnswer(res, 200, projection(req)(await flow(req, ScimGroupsFlow).get(String(req.params.id), wantsMembers(req), scimBase(req))));
    }),
  );
  r.put(
    '/:id',
    scimHandler(async (req, res) => {
      scimAnswer(res, 200, projection(req)(await flow(req, ScimGroupsFlow).replace(scimCaller(req), String(req.params.id), req.body, scimBase(req))));
    }),
  );
  r.patch(
    '/:id',
    scimHandler(async (req, res) => {
      const group = await flow(req, ScimGroupsFlow).patch(scimCaller(req), String(req.params.id), req.body, scimBase(req));
      // Entra ID and Okta accept 204 or 200; the resource lets a client see what it holds now
      scimAnswer(res, 200, projection(req)(group));
    }),
  );
  r.delete(
    '/:id',
    scimHandler(async (req, res) => {
      await flow(req, ScimGroupsFlow).delete(scimCaller(req), String(req.params.id));
      scimAnswer(res, 204);
    }),
  );
  return r;
}
