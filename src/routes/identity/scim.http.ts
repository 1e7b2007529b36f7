import express, { type NextFunction, type Request, type Response } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { LOGGER } from '../../platform/tokens';
import { ApiError } from '../../platform/errors/api-error';
import { tenantMiddleware } from '../../platform/http/tenant-middleware';
import { requestScope } from '../../platform/tenant-scope/request-scope';
import { series } from '../../platform/http/middleware-series';
import { ScimError, resourceTypes, scimSchemas, serviceProviderConfig } from '../../identity';
import { ScimAuthenticator } from '../../flows/scim/scim-auth';
import { scimAnswer, scimBase, setScimCaller } from './scim-http-support';

export { SCIM_PATH } from './scim-http-support';
import { scimGroupsRouter, scimUsersRouter } from './scim-resources.http';

/** An API error of the flows below (person rules, validation) in SCIM's terms. */
function fromApiError(err: ApiError): ScimError {
  const status = err.status;
  if (err.errorcode === 419 || err.errorcode === 420)
    return /already taken/.test(err.message) ? new ScimError(409, err.message, 'uniqueness') : ScimError.invalidValue(err.message);
  if (status === 409) return new ScimError(409, err.message, /taken|exists/.test(err.message) ? 'uniqueness' : undefined);
  return new ScimError(status, err.message, undefined, err.headers);
}

function scimFailure(container: DependencyContainer) {
  const logger = container.resolve(LOGGER);
  return (err: unknown, req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) return next(err);
    let e: ScimError;
    if (err instanceof ScimError) e = err;
    else if (err instanceof ApiError && err.status < 500) e = fromApiError(err);
    else if (err instanceof ApiError) e = new ScimError(err.status, err.message, undefined, err.headers);
    else if ((err as { type?: string }).type === 'entity.parse.failed') e = ScimError.invalidSyntax('the body is not valid JSON');
    else if ((err as { type?: string }).type === 'entity.too.large') e = new ScimError(413, 'the body is too large', 'tooMany');
    else {
      logger.error({ err, path: req.path, method: req.method }, 'SCIM request failed');
      e = new ScimError(500, 'internal error');
    }
    scimAnswer(res, e.status, e.body, e.headers);
  };
}

/**
 * SCIM 2.0 (RFC 7643/7644) at /scim/v2 on the tenant's host (src/identity/scim/README.md): the tenant
 * from the Host header as for /api, but not /api's login schemes: ScimAuthenticator wants an API
 * client's token with the scope `scim`. Bodies are application/scim+json (or application/json);
 * every answer and error is application/scim+json.
 */
export function scimHttp(container: DependencyContainer): express.Router {
  const router = express.Router();
  router.use(
    series(express.json({ type: ['application/scim+json', 'application/json'], limit: '1mb' }), tenantMiddleware(container, { authenticate: false })),
    async (req: Request, _res: Response, next: NextFunction) => {
      try {
        const scope = requestScope(req);
        setScimCaller(req, await scope.container.resolve(ScimAuthenticator).authenticate(req.headers.authorization, req.ip ?? ''));
        next();
      } catch (err) {
        next(err);
      }
    },
  );
  router.get('/ServiceProviderConfig', (req, res) => scimAnswer(res, 200, serviceProviderConfig(scimBase(req))));
  router.get('/ResourceTypes', (req, res) => {
    const all = resourceTypes(scimBase(req));
    scimAnswer(res, 200, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
      totalResults: all.length,
      startIndex: 1,
      itemsPerPage: all.length,
      Resources: all,
    });
  });
  router.get('/ResourceTypes/:id', (req, res) => {
    const one = resourceTypes(scimBase(req)).find((r) => r.id === req.params.id);
    if (!one) throw ScimError.notFound(`ResourceType ${req.params.id}`);
    scimAnswer(res, 200, one);
  });
  router.get('/Schemas', (req, res) => {
    const all = scimSchemas(scimBase(req));
    scimAnswer(res, 200, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
      totalResults: all.length,
      startIndex: 1,
      itemsPerPage: all.length,
      Resources: all,
    });
  });
  router.get('/Schemas/:id', (req, res) => {
    const one = scimSchemas(scimBase(req)).find((r) => r.id === req.params.id);
    if (!one) throw ScimError.notFound(`Schema ${req.params.id}`);
    scimAnswer(res, 200, one);
  });
  router.use('/Users', scimUsersRouter());
  router.use('/Groups', scimGroupsRouter());
  router.use((req) => {
    throw new ScimError(404, `no SCIM endpoint ${req.method} ${req.baseUrl}${req.path}`);
  });
  router.use(scimFailure(container));
  return router;
}
