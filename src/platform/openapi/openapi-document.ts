import type { RouteGroup } from '../http/define-route';
import { ERROR_STATUS } from '../errors/api-error';
import { collected, resolveSchemaRefs, startCollecting, type JsonSchema } from './json-schema';
import { ERRORCODE_MEANINGS, openApiPath, operation } from './openapi-operation';

/** What every success answer of the tenant and operator API holds besides its objects (the array named by the operation). */
const envelope: JsonSchema = {
  type: 'object',
  description: 'A success answer: valid true, a message, and the objects in the array the operation names (persons, events, ...)',
  required: ['valid', 'message'],
  properties: {
    valid: { const: true },
    message: { type: 'string' },
  },
};

const errorEnvelope: JsonSchema = {
  type: 'object',
  description: 'A failure: valid false, a message for people and an errorcode for programs (see the table at the top)',
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
  /** A description of every tag an operation names (the first path segment, or the group's tag). */
  tags?: Record<string, string>;
  securitySchemes?: Record<string, unknown>;
  schemas?: Record<string, JsonSchema>;
}

/**
 * OpenAPI 3.1 built from the same route definitions and zod schemas the server validates with,
 * group by group: the tenant API under /api, the operator API under /platform.
 */
/** The response headers operations refer to (#/components/headers/...). */
const HEADERS = {
  RateLimit: {
    description: 'IETF ratelimit-headers: the caller\'s points left in the window (r) and the seconds until it resets (t), e.g. "minute";r=1187;t=42',
    schema: { type: 'string' },
  },
  'RateLimit-Policy': {
    description:
      'IETF ratelimit-headers: the caller\'s quota (q points) per window (w seconds), e.g. "minute";q=1200;w=60 (config item api.rate_limit.per_minute)',
    schema: { type: 'string' },
  },
  'Retry-After': { description: 'seconds to wait before trying again', schema: { type: 'integer', minimum: 0 } },
  'Idempotent-Replayed': {
    description: 'true: this is the stored answer of an earlier request with the same Idempotency-Key; the request was not run again',
    schema: { type: 'string', enum: ['true'] },
  },
};

/**
 * OpenAPI 3.1 built from the same route definitions and zod schemas the server validates with,
 * group by group: the tenant API under /api, the operator API under /platform. The same routes
 * give the same bytes (JSON.stringify) on every Node version: nothing is ordered by a hash or a locale.
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
    info: {
      title: 'Competence and training management API',
      version: info.version,
      description: info.description,
      contact: { name: 'Competence platform maintainers' },
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: '/', description: 'the tenant is chosen by the Host header' }],
    tags: tags(paths, extra.tags ?? {}),
    paths: resolveSchemaRefs(paths),
    components: {
      securitySchemes: {
        platformToken: { type: 'http', scheme: 'bearer', description: 'PLATFORM_ADMIN_TOKEN, for the operator API under /platform' },
        tgVisit: { type: 'apiKey', in: 'cookie', name: 'tg-visit', description: 'session_id from POST /api/login' },
        swt: { type: 'apiKey', in: 'header', name: 'Authorization', description: "SWT <token> signed with the tenant's api.oauth.secret" },
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
      headers: HEADERS,
      schemas: { Envelope: envelope, ErrorEnvelope: errorEnvelope, ...collected(), ...extra.schemas },
    },
  };
}

/** The tags the operations name, in the order first named, each with its description (a tag without one is a mistake). */
function tags(paths: Record<string, Record<string, unknown>>, descriptions: Record<string, string>) {
  const names = [...new Set(Object.values(paths).flatMap((methods) => Object.values(methods).flatMap((op) => (op as { tags?: string[] }).tags ?? [])))];
  const missing = names.filter((name) => !descriptions[name]);
  if (missing.length) throw new Error(`OpenAPI tags without a description (OpenApiExtra.tags): ${missing.join(', ')}`);
  return names.map((name) => ({ name, description: descriptions[name] }));
}

export function errorcodeTable(): string {
  return Object.entries(ERROR_STATUS)
    .map(([code, status]) => `| ${code} | ${status} | ${ERRORCODE_MEANINGS[Number(code)]} |`)
    .join('\n');
}
