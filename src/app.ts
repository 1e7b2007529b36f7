import express, { type Express } from 'express';
import helmet from 'helmet';
import type { DependencyContainer } from 'tsyringe';
import { ENV, LOGGER } from './platform/tokens';
import { requestLogging } from './platform/http/request-logging';
import { tenantMiddleware } from './platform/http/tenant-middleware';
import { mountRoutes } from './platform/http/mount-routes';
import { errorMiddleware } from './platform/http/error-middleware';
import { ApiError } from './platform/errors/api-error';
import { healthRoutes } from './platform/http/health-routes';
import {
  allRoutes,
  routeGroups,
  filesHttp,
  adminPageRoutes,
  platformRoutes,
  oauthTokenHttp,
  openApiExtra,
  verifyHttp,
  jwksHttp,
  scimHttp,
  SCIM_PATH,
  calendarFeedHttp,
} from './routes';
import { mountDocs } from './platform/openapi/docs-routes';
import { version } from '../package.json';
import { apiRateLimit } from './platform/http/api-rate-limit';
import { tenantCors, csrfGuard } from './identity';
import { QUEUE_DASHBOARD_PATH, queueDashboard } from './platform/queue/queue-dashboard';
import { httpMetrics, metricsRoutes } from './platform/metrics/http-metrics';
import { QS_OPTIONS, inputGuard, parseQueryString } from './platform/http/input-guard';
import { series, underSegment, whenBody } from './platform/http/middleware-series';
import { installLazyCookies } from './platform/http/lazy-cookies';
import { requestTracing } from './platform/tracing/request-tracing';

/** The express app without listen(); tests drive it with supertest. */
export function buildApp(container: DependencyContainer): Express {
  const env = container.resolve(ENV);
  const logger = container.resolve(LOGGER);
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', env.TRUST_PROXY);
  // Bracket form (person_data[email]=x) and repeated keys (ids=1&ids=2) in query strings.
  app.set('query parser', parseQueryString);
  // req.cookies / req.signedCookies as cookie-parser gives them, parsed on first read (lazy-cookies.ts).
  installLazyCookies(app.request);

  // Middleware every request passes run as one router layer each (series: why, there).
  app.use(series(requestLogging(logger), httpMetrics(container), ...requestTracing()));
  // Before helmet: Bull Board's page needs its inline scripts (it is behind the operator token).
  const dashboard = queueDashboard(container);
  if (dashboard) app.use(QUEUE_DASHBOARD_PATH, dashboard);
  // Cross-Origin-Resource-Policy: same-origin stays: browsers apply it to no-cors loads only,
  // so CORS fetches from cors.origins still work (test/identity/cors/browser-cors.test.ts proves it).
  app.use(helmet());
  // GET /api/openapi.json is here; everything else under /api is the API router's.
  mountDocs(app, routeGroups, version, openApiExtra);
  app.use('/api', apiHandler(container));
  // API clients' access tokens (OAuth 2.0 client credentials) on the tenant's host: RFC 6749 JSON, not the envelope.
  app.use('/oauth', oauthTokenHttp(container));
  // Certificates anyone may check (issue 38): the verification page and the credential keys, no login.
  app.use('/verify', verifyHttp(container));
  app.use('/.well-known', jwksHttp(container));
  // SCIM 2.0 provisioning on the tenant's host: application/scim+json and SCIM errors, its own Bearer check (scope scim).
  app.use(SCIM_PATH, scimHttp(container));
  // Personal calendar feeds (issue 39): GET /calendar/<token>.ics, no login, rate limited.
  app.use('/calendar', calendarFeedHttp(container));
  app.use(healthRoutes(container));
  app.use(metricsRoutes(container));
  // Operator API (defineRoute routes outside any tenant, behind the operator's token) and admin page; /admin checks the host itself.
  app.use('/platform', platformRoutes(container));
  app.use(adminPageRoutes(container));

  app.use((req) => {
    throw new ApiError(404, `not found: ${req.method} ${req.path}`);
  });
  app.use(errorMiddleware(logger));
  return app;
}

/**
 * The tenant API. Mounted before the operator's and the admin page's routers, which own no path
 * under /api, so that an API call does not walk through them first. One series, not a router:
 * express's app layer for /api already sets req.baseUrl and restores it, and a router's
 * handle/next per request was a measurable share of a fast call (src/platform/http/README.md).
 */
function apiHandler(container: DependencyContainer): express.RequestHandler {
  // Multipart upload and raw download of files (the router falls through to their defineRoute routes).
  const files = express.Router();
  files.use('/files', filesHttp(container));
  return series(
    whenBody(express.json({ limit: '1mb' }), express.urlencoded({ extended: true, limit: '1mb', parameterLimit: QS_OPTIONS.parameterLimit })),
    // NUL, lone surrogates and nesting are refused here, before any route or service sees them.
    inputGuard(),
    tenantCors(container),
    tenantMiddleware(container),
    apiRateLimit(container, allRoutes),
    csrfGuard(),
    underSegment('files', files),
    mountRoutes(allRoutes),
    (req) => {
      throw new ApiError(404, `unknown API call: ${req.method} ${req.baseUrl}${req.path}`);
    },
  );
}
