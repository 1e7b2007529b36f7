import type { MediaContent, RouteDefinition, RouteGroup } from '../http/define-route';
import { ERROR_STATUS } from '../errors/api-error';
import { IDEMPOTENCY_HEADER, takesIdempotencyKey } from '../http/idempotency';
import { toJsonSchema, type JsonSchema } from './json-schema';

export const ERRORCODE_MEANINGS: Record<number, string> = {
  400: 'request body could not be read',
  401: 'not logged in',
  403: "logged in but not authorised for the resource or action; on POST, PUT and DELETE also: a session-cookie request from an Origin (or Referer) that is neither the tenant's host nor in cors.origins",
  404: 'not found (wrong URL, an id that matches no object, or an object of another tenant)',
  409: "conflict with the object's state (e.g. a locked survey answer: use POST), or an identical write handled at the same time",
  413: 'body or upload too large',
  418: 'must change password: every call except login, logout and the password update answers this',
  419: 'missing parameter (named in the message)',
  420: 'malformed parameter (named in the message)',
  423: 'tenant suspended by the operator',
  429: 'too many requests',
  500: 'unexpected server error (logged with the request id)',
  501: 'not implemented',
  503: "a dependency (database, Redis) is unavailable; retry after the Retry-After header's seconds",
};

/** What the codes mean outside any tenant, behind the operator's token. */
const OPERATOR_MEANINGS: Record<number, string> = {
  401: 'no operator token, or a wrong one',
  404: 'not found (an unknown tenant, person, host or config item), or the operator API is disabled (PLATFORM_ADMIN_TOKEN is not set)',
  409: 'conflict (a slug or host taken, the last host, confirm missing, a move of the tenant running)',
};

/**
 * method + the path's words in camel case: GET /persons/:user_name is getPersonsUser_name. Every
 * character outside [A-Za-z0-9_] (/, :, {, }, ., -) separates words, so no id holds one.
 */
export function operationId(method: string, path: string): string {
  return (
    method +
    path
      .split(/[^A-Za-z0-9_]+/)
      .filter(Boolean)
      .map((w) => w[0].toUpperCase() + w.slice(1))
      .join('')
  );
}

export function openApiPath(group: RouteGroup, path: string): string {
  return `${group.base}${path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}')}`;
}

function pathParams(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]);
}

const ENVELOPE_REF = { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } };

const header = (name: string) => ({ $ref: `#/components/headers/${name}` });
/** Headers every answer of the tenant API carries once its rate limit was counted (all but during a Redis outage). */
const RATE_LIMIT_HEADERS = { RateLimit: header('RateLimit'), 'RateLimit-Policy': header('RateLimit-Policy') };

/** The headers an answer of `status` declares. */
function answerHeaders(route: RouteDefinition, group: RouteGroup, status: number): Record<string, unknown> | undefined {
  const headers: Record<string, unknown> = {
    ...(group.tenant ? RATE_LIMIT_HEADERS : {}),
    ...(status === 429 || status === 503 || (status === 409 && idempotent(route, group)) ? { 'Retry-After': header('Retry-After') } : {}),
    ...(status >= 200 && status < 300 && idempotent(route, group) ? { 'Idempotent-Replayed': header('Idempotent-Replayed') } : {}),
  };
  return Object.keys(headers).length ? headers : undefined;
}

function successSchema(route: RouteDefinition): JsonSchema {
  const item = route.output ? toJsonSchema(route.output, 'output') : { type: 'object' };
  const extras = Object.entries(route.extras ?? {}).map(([name, schema]) => [name, toJsonSchema(schema, 'output')] as const);
  return {
    allOf: [
      { $ref: '#/components/schemas/Envelope' },
      {
        type: 'object',
        // a route that declares its objects always answers them; one without may answer the envelope alone ({ body })
        required: [...(route.output ? [route.resource] : []), ...extras.map(([name]) => name)],
        properties: { [route.resource]: { type: 'array', items: item }, ...Object.fromEntries(extras) },
      },
    ],
  };
}

/** A body or answer by media type; bytes as a string of that media type (OpenAPI 3.1). */
function mediaContent(media: MediaContent, io: 'input' | 'output') {
  const content = Object.entries(media.content).map(([type, schema]) => [
    type,
    { schema: schema === 'binary' ? { type: 'string', contentMediaType: type } : toJsonSchema(schema, io) },
  ]);
  return { description: media.description, content: Object.fromEntries(content) };
}

function errorResponses(route: RouteDefinition, group: RouteGroup) {
  const byStatus = new Map<number, number[]>();
  const write = route.method !== 'get';
  // The tenant API counts calls (429), and every write there can meet the cross-site check of a session cookie (403).
  const limited = group.tenant ? [429] : [];
  const csrf = group.tenant && write && !route.access.login ? [403] : [];
  const credentials = route.access.login ? [401, 403, 418] : route.access.scheme ? [401] : [];
  const codes = [...new Set([419, 420, 404, ...limited, 500, 503, ...(write ? [409] : []), ...credentials, ...csrf, ...(route.errors ?? [])])];
  for (const code of codes) {
    const status = ERROR_STATUS[code as keyof typeof ERROR_STATUS];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const meaning = (code: number) => (!group.tenant && OPERATOR_MEANINGS[code]) || ERRORCODE_MEANINGS[code];
  const responses = Object.fromEntries(
    [...byStatus].map(([status, list]) => [
      String(status),
      {
        description: list.map((c) => `errorcode ${c}: ${meaning(c)}`).join('; '),
        headers: answerHeaders(route, group, status),
        content: ENVELOPE_REF,
      },
    ]),
  );
  if (idempotent(route, group)) {
    responses['409'].description += `; or a request with the same ${IDEMPOTENCY_HEADER} is still running (Retry-After)`;
    responses['422'] = {
      description: `errorcode 420: the ${IDEMPOTENCY_HEADER} was used for a different request within 24 hours`,
      headers: answerHeaders(route, group, 422),
      content: ENVELOPE_REF,
    };
  }
  return responses;
}

/** Idempotency-Key is the tenant API's (keys are kept per tenant and caller). */
const idempotent = (route: RouteDefinition, group: RouteGroup) => group.tenant && takesIdempotencyKey(route);

const IDEMPOTENCY_PARAMETER = {
  name: IDEMPOTENCY_HEADER,
  in: 'header',
  required: false,
  description:
    'IETF httpapi Idempotency-Key: 1-255 printable ASCII characters. A repeat of the same request (same caller, method, path and parameters) within 24 hours replays the stored 2xx answer with Idempotent-Replayed: true (4xx and 5xx answers are not kept; input checks and the access rule run first); at most IDEMPOTENCY_MAX_KEYS live keys per caller (429 past it); an answer carrying a shown-once secret is not kept, a repeat is 409 already done; ignored for anonymous callers and for answers that set a cookie',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

function security(route: RouteDefinition): Record<string, string[]>[] {
  if (route.access.scheme) return [{ [route.access.scheme]: [] }];
  if (!route.access.login) return [];
  return [{ tgVisit: [] }, { swt: [] }, { bearer: [route.method === 'get' ? 'api.read' : 'api.write'] }];
}

export function operation(route: RouteDefinition, group: RouteGroup) {
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
  if (idempotent(route, group)) parameters.push(IDEMPOTENCY_PARAMETER);
  const rest = Object.entries(properties).filter(([name]) => !inPath.includes(name));
  const op: Record<string, unknown> = {
    // The tenant API's ids leave its base out (as they were first published): getPersons, not getApiPersons.
    operationId: operationId(route.method, group.tenant ? route.path : `${group.base}${route.path}`),
    summary: route.summary,
    description: [`Access: ${route.access.security}.`, route.description].filter(Boolean).join('\n\n'),
    tags: [group.tag ?? route.path.split('/')[1]],
    security: security(route),
    'x-access': route.access.security,
    ...rateLimitCost(route, group),
    parameters,
    responses: successResponses(route, group),
  };
  Object.assign(op.responses as object, errorResponses(route, group));
  // A body taken whole leaves every other parameter to the query string.
  if (route.method === 'get' || route.method === 'delete' || route.body) {
    for (const [name, schema] of rest) parameters.push({ name, in: 'query', required: required.has(name), schema });
    if (route.body) op.requestBody = { ...mediaContent(route.body, 'input'), required: true };
  } else {
    const body = {
      type: 'object',
      properties: Object.fromEntries(rest),
      required: rest.map(([n]) => n).filter((n) => required.has(n)),
    };
    op.requestBody = {
      description: 'JSON, form-encoded (bracket form for nested objects) or the same names in the query string',
      // required when it holds a required parameter (which may come in the query string instead)
      ...(body.required.length > 0 ? { required: true } : {}),
      content: { 'application/json': { schema: body }, 'application/x-www-form-urlencoded': { schema: body } },
    };
  }
  return op;
}

/** The 2xx (or the 302 of a redirect): the envelope with the route's objects, or its own media. */
function successResponses(route: RouteDefinition, group: RouteGroup): Record<string, unknown> {
  if (route.redirect) {
    return {
      '302': {
        description: `Redirect ${route.redirect}`,
        headers: { Location: { description: 'where the browser goes next', schema: { type: 'string' } }, ...answerHeaders(route, group, 302) },
      },
    };
  }
  const status = route.created ? '201' : '200';
  const headers = answerHeaders(route, group, Number(status));
  const envelope = (description: string) => ({ description, headers, content: { 'application/json': { schema: successSchema(route) } } });
  return {
    [status]: route.answer ? { ...mediaContent(route.answer, 'output'), headers } : envelope(`Envelope with ${route.resource}: an array of objects`),
    ...(route.accepted ? { '202': envelope(`Accepted: ${route.accepted}`) } : {}),
  };
}

/**
 * x-rate-limit-cost: the points of the caller's per-minute rate limit one call takes (the tenant API
 * only; the operator API has no rate limit); with a heavier weight, x-rate-limit-cost-when says when.
 */
function rateLimitCost(route: RouteDefinition, group: RouteGroup): Record<string, unknown> {
  if (!group.tenant) return {};
  const cost = route.cost ?? 1;
  if (typeof cost === 'number') return { 'x-rate-limit-cost': cost };
  return { 'x-rate-limit-cost': cost.base, 'x-rate-limit-cost-when': { ...cost.when, cost: cost.heavier } };
}
