import type { RouteGroup } from '../http/define-route';
import { ERROR_STATUS } from '../errors/api-error';
import { collected, startCollecting, type JsonSchema } from './json-schema';
import { ERRORCODE_MEANINGS, openApiPath, operation } from './openapi-operation';

const errorEnvelope: JsonSchema = {
  type: 'object',
  required: ['valid', 'message', 'errorcode'],
  properties: {
    valid: { const: false },
    message: { type: 'string' },
    errorcode: { type: 'integer', enum: Object.keys(ERROR_STATUS).map(Number) },
    parameter: { type: 'string', description: 'the parameter a 419/420 is about' },
    problems: { type: 'array', items: { type: 'string' } },
    retry_after_seconds: { type: 'integer', description: 'with a 503: seconds to wait before retrying (also the Retry-After header)' },
  },
};

/**
 * Paths served outside defineRoute (SCIM at /scim/v2: its own media type and error schema), described
 * by hand by the router that serves them, with the security schemes and schemas they name.
 */
export interface OpenApiExtra {
  paths?: Record<string, Record<string, unknown>>;
  securitySchemes?: Record<string, unknown>;
  schemas?: Record<string, JsonSchema>;
}

/**
 * OpenAPI 3.1 built from the same route definitions and zod schemas the server validates with,
 * group by group: the tenant API under /api, the operator API under /platform.
 */
export function buildOpenApiDocument(groups: readonly RouteGroup[], info: { version: string; description: string }, extra: OpenApiExtra = {}) {
  startCollecting();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const group of groups) {
    for (const route of group.routes) {
      const p = openApiPath(group, route.path);
      paths[p] ??= {};
      paths[p][route.method] = operation(route, group);
    }
  }
  // Endpoints whose wire format a standard fixes (RFC 6749's token endpoint, SCIM) are written by hand next to their code.
  Object.assign(paths, structuredClone(extra.paths ?? {}));
  return {
    openapi: '3.1.0',
    info: { title: 'Competence and training management API', version: info.version, description: info.description },
    servers: [{ url: '/', description: 'the tenant is chosen by the Host header' }],
    paths,
    components: {
      securitySchemes: {
        platformToken: { type: 'http', scheme: 'bearer', description: 'PLATFORM_ADMIN_TOKEN, for the operator API under /platform' },
        tgVisit: { type: 'apiKey', in: 'cookie', name: 'tg-visit', description: 'session_id from POST /api/login' },
        swt: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'SWT <token> signed with the tenant\'s api.oauth.secret' },
        bearer: {
          type: 'oauth2',
          description:
            'Authorization: Bearer <access_token> of an API client (POST /oauth/token, client credentials), acting with the rights of its run_as person: api.read for GET, api.write for every method; scim for /scim/v2',
          flows: {
            clientCredentials: {
              tokenUrl: '/oauth/token',
              scopes: { 'api.read': 'GET on /api', 'api.write': 'every method on /api', scim: 'SCIM 2.0 provisioning at /scim/v2' },
            },
          },
        },
        ...extra.securitySchemes,
      },
      schemas: { ErrorEnvelope: errorEnvelope, ...collected(), ...extra.schemas },
    },
  };
}

export function errorcodeTable(): string {
  return Object.entries(ERROR_STATUS)
    .map(([code, status]) => `| ${code} | ${status} | ${ERRORCODE_MEANINGS[Number(code)]} |`)
    .join('\n');
}
