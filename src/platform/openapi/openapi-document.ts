import { z } from 'zod';
import type { RouteDefinition } from '../http/define-route';
import { ERROR_STATUS } from '../errors/api-error';
import { IDEMPOTENCY_HEADER, takesIdempotencyKey } from '../http/idempotency';

type JsonSchema = Record<string, unknown>;

const ERRORCODE_MEANINGS: Record<number, string> = {
  400: 'request body could not be read',
  401: 'not logged in',
  403: 'logged in but not authorised for the resource or action; on POST, PUT and DELETE also: a session-cookie request from an Origin (or Referer) that is neither the tenant\'s host nor in cors.origins',
  404: 'not found (wrong URL, an id that matches no object, or an object of another tenant)',
  409: 'conflict with the object\'s state (e.g. a locked survey answer: use POST), or an identical write handled at the same time',
  413: 'body or upload too large',
  418: 'must change password: every call except login, logout and the password update answers this',
  419: 'missing parameter (named in the message)',
  420: 'malformed parameter (named in the message)',
  423: 'tenant suspended by the operator',
  429: 'too many requests',
  500: 'unexpected server error (logged with the request id)',
  501: 'not implemented',
  503: 'a dependency (database, Redis) is unavailable; retry after the Retry-After header\'s seconds',
};

/** Sub-schemas that zod emits as $defs (recursive ones); hoisted into components.schemas. */
const hoisted: Record<string, JsonSchema> = {};
let hoistCounter = 0;

function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const js = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  delete js.$schema;
  const defs = js.$defs as Record<string, JsonSchema> | undefined;
  if (!defs) return js;
  delete js.$defs;
  // $refs are relative to the document root once embedded, so they must point at components.
  const renamed = new Map(Object.keys(defs).map((k) => [k, `Shared${++hoistCounter}`]));
  const rewrite = (text: string) =>
    text.replace(/"#\/\$defs\/([^"]+)"/g, (_m, name: string) => `"#/components/schemas/${renamed.get(name)}"`);
  for (const [k, v] of Object.entries(defs)) hoisted[renamed.get(k)!] = JSON.parse(rewrite(JSON.stringify(v)));
  return JSON.parse(rewrite(JSON.stringify(js)));
}

function openApiPath(path: string): string {
  return `/api${path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}')}`;
}

/**
 * method + the path's words in camel case: GET /persons/:user_name is getPersonsUser_name. Every
 * character outside [A-Za-z0-9_] (/, :, {, }, ., -) separates words, so no id holds one.
 */
export function operationId(method: string, path: string): string {
  return method + path.split(/[^A-Za-z0-9_]+/).filter(Boolean).map((w) => w[0].toUpperCase() + w.slice(1)).join('');
}

function pathParams(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]);
}

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

function successSchema(route: RouteDefinition): JsonSchema {
  const item = route.output ? toJsonSchema(route.output, 'output') : { type: 'object' };
  return {
    type: 'object',
    required: ['valid', 'message'],
    properties: {
      valid: { const: true },
      message: { type: 'string' },
      [route.resource]: { type: 'array', items: item },
    },
  };
}

function errorResponses(route: RouteDefinition) {
  const byStatus = new Map<number, number[]>();
  // Every write can meet the cross-site check of a session cookie (403).
  const csrf = route.method !== 'get' && !route.access.login ? [403] : [];
  const codes = [...new Set([419, 420, 404, 429, 500, 503, ...(route.method === 'get' ? [] : [409]), ...(route.access.login ? [401, 403, 418] : []), ...csrf, ...(route.errors ?? [])])];
  for (const code of codes) {
    const status = ERROR_STATUS[code as keyof typeof ERROR_STATUS];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses = Object.fromEntries(
    [...byStatus].map(([status, list]) => [
      String(status),
      {
        description: list.map((c) => `errorcode ${c}: ${ERRORCODE_MEANINGS[c]}`).join('; '),
        ...(status === 429 ? { headers: { 'Retry-After': { description: 'seconds until the limit\'s window has passed', schema: { type: 'integer' } } } } : {}),
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
      },
    ]),
  );
  if (takesIdempotencyKey(route)) {
    responses['409'].description += `; or a request with the same ${IDEMPOTENCY_HEADER} is still running (Retry-After)`;
    responses['422'] = {
      description: `errorcode 420: the ${IDEMPOTENCY_HEADER} was used for a different request within 24 hours`,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
    };
  }
  return responses;
}

const IDEMPOTENCY_PARAMETER = {
  name: IDEMPOTENCY_HEADER,
  in: 'header',
  required: false,
  description:
    'IETF httpapi Idempotency-Key: 1-255 printable ASCII characters. A repeat of the same request (same caller, method, path and parameters) within 24 hours replays the stored 2xx/4xx answer with Idempotent-Replayed: true; ignored for anonymous callers and for answers that set a cookie',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

function operation(route: RouteDefinition) {
  const inputSchema = toJsonSchema(route.input, 'input');
  const properties = (inputSchema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((inputSchema.required as string[] | undefined) ?? []);
  const inPath = pathParams(route.path);
  const parameters: unknown[] = inPath.map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: properties[name] ?? { type: 'string' },
  }));
  if (takesIdempotencyKey(route)) parameters.push(IDEMPOTENCY_PARAMETER);
  const rest = Object.entries(properties).filter(([name]) => !inPath.includes(name));
  const op: Record<string, unknown> = {
    operationId: operationId(route.method, route.path),
    summary: route.summary,
    description: [`Access: ${route.access.security}.`, route.description].filter(Boolean).join('\n\n'),
    tags: [route.path.split('/')[1]],
    security: route.access.login ? [{ tgVisit: [] }, { swt: [] }] : [],
    'x-access': route.access.security,
    parameters,
    responses: {
      '200': {
        description: `Envelope with ${route.resource}: an array of objects`,
        content: { 'application/json': { schema: successSchema(route) } },
      },
      ...errorResponses(route),
    },
  };
  if (route.method === 'get' || route.method === 'delete') {
    for (const [name, schema] of rest) parameters.push({ name, in: 'query', required: required.has(name), schema });
  } else {
    const body = {
      type: 'object',
      properties: Object.fromEntries(rest),
      required: rest.map(([n]) => n).filter((n) => required.has(n)),
    };
    op.requestBody = {
      description: 'JSON, form-encoded (bracket form for nested objects) or the same names in the query string',
      content: { 'application/json': { schema: body }, 'application/x-www-form-urlencoded': { schema: body } },
    };
  }
  return op;
}

export type OpenApiPaths = Record<string, Record<string, unknown>>;

/**
 * OpenAPI 3.1 built from the same route definitions and zod schemas the server validates with;
 * `paths` adds operations that are no route definitions (the operator API under /platform).
 */
export function buildOpenApiDocument(routes: readonly RouteDefinition[], info: { version: string; description: string; paths?: OpenApiPaths }) {
  for (const k of Object.keys(hoisted)) delete hoisted[k];
  hoistCounter = 0;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const p = openApiPath(route.path);
    paths[p] ??= {};
    paths[p][route.method] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Competence and training management API', version: info.version, description: info.description },
    servers: [{ url: '/', description: 'the tenant is chosen by the Host header' }],
    paths: { ...paths, ...info.paths },
    components: {
      securitySchemes: {
        platformToken: { type: 'http', scheme: 'bearer', description: 'PLATFORM_ADMIN_TOKEN, for the operator API under /platform' },
        tgVisit: { type: 'apiKey', in: 'cookie', name: 'tg-visit', description: 'session_id from POST /api/login' },
        swt: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'SWT <token> signed with the tenant\'s api.oauth.secret' },
      },
      schemas: { ErrorEnvelope: errorEnvelope, ...hoisted },
    },
  };
}

export function errorcodeTable(): string {
  return Object.entries(ERROR_STATUS)
    .map(([code, status]) => `| ${code} | ${status} | ${ERRORCODE_MEANINGS[Number(code)]} |`)
    .join('\n');
}
