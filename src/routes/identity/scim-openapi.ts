import type { OpenApiExtra } from '../../platform/openapi/openapi-document';
import { SCIM_PATH } from './scim-http-support';

const ACCESS = 'an API client access token with the scope scim (POST /oauth/token on the tenant host); the client acts as itself';
const SCIM = 'application/scim+json';
const resource = (description: string) => ({ description, content: { [SCIM]: { schema: { $ref: '#/components/schemas/ScimResource' } } } });
const failure = (description: string) => ({ description, content: { [SCIM]: { schema: { $ref: '#/components/schemas/ScimError' } } } });
const ERRORS = {
  '400': failure('invalidFilter, invalidSyntax, invalidValue, invalidPath, mutability, noTarget (scimType)'),
  '401': failure("no token, or an unknown, expired, revoked or other tenant's one"),
  '403': failure('the token lacks the scope scim'),
  '503': {
    ...failure('a dependency (database, Redis) is unavailable: retry after Retry-After seconds'),
    headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' } },
  },
};
const ID = { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: "the person's (User) or role's (Group) id" };
const LIST_PARAMETERS = [
  { name: 'filter', in: 'query', schema: { type: 'string' }, description: 'RFC 7644 §3.4.2.2: eq ne co sw ew pr, and or not, value filters' },
  { name: 'startIndex', in: 'query', schema: { type: 'integer', minimum: 1 }, description: '1-based (default 1)' },
  { name: 'count', in: 'query', schema: { type: 'integer', minimum: 0, maximum: 200 }, description: 'default and most 200' },
  { name: 'attributes', in: 'query', schema: { type: 'string' } },
  { name: 'excludedAttributes', in: 'query', schema: { type: 'string' } },
];
const BODY = (what: string) => ({
  required: true,
  content: { [SCIM]: { schema: { $ref: '#/components/schemas/ScimResource' } }, 'application/json': { schema: { $ref: '#/components/schemas/ScimResource' } } },
  description: what,
});

function op(
  method: string,
  name: string,
  summary: string,
  extra: Record<string, unknown> = {},
  ok: Record<string, unknown> = { '200': resource('the resource') },
) {
  return {
    operationId: `scim${method}${name}`,
    summary,
    description: `Access: ${ACCESS}. SCIM 2.0 (RFC 7643/7644); see src/identity/scim/README.md for the mapping to persons and roles.`,
    tags: ['scim'],
    security: [{ scimBearer: [] }],
    'x-access': ACCESS,
    ...extra,
    responses: {
      ...ok,
      ...ERRORS,
      ...(extra.parameters && (extra.parameters as unknown[]).includes(ID) ? { '404': failure('no such resource on this tenant') } : {}),
    },
  };
}

function resourcePaths(kind: 'Users' | 'Groups', one: string, more: string) {
  return {
    [`${SCIM_PATH}/${kind}`]: {
      get: op(
        'Get',
        kind,
        `${more}: a ListResponse, filtered and paged`,
        { parameters: LIST_PARAMETERS },
        { '200': resource('urn:ietf:params:scim:api:messages:2.0:ListResponse') },
      ),
      post: op(
        'Post',
        kind,
        `Create a ${one}`,
        { requestBody: BODY(one) },
        { '201': resource(`the new ${one}`), '409': failure('uniqueness: the userName or displayName is taken') },
      ),
    },
    [`${SCIM_PATH}/${kind}/{id}`]: {
      get: op('Get', `${kind}Id`, `One ${one}`, { parameters: [ID] }),
      put: op('Put', `${kind}Id`, `Replace a ${one}`, { parameters: [ID], requestBody: BODY(one) }),
      patch: op('Patch', `${kind}Id`, `Change a ${one} (PatchOp as Entra ID and Okta send it)`, {
        parameters: [ID],
        requestBody: BODY('urn:ietf:params:scim:api:messages:2.0:PatchOp'),
      }),
      delete: op(
        'Delete',
        `${kind}Id`,
        kind === 'Users' ? 'Deactivate the person (the history stays)' : 'Take the role from its holders; delete it when SCIM created it',
        { parameters: [ID] },
        { '204': { description: 'done' } },
      ),
    },
  };
}

/** /scim/v2 in the OpenAPI document (served by scimHttp, not defineRoute). */
export const scimOpenApi: OpenApiExtra = {
  paths: {
    [`${SCIM_PATH}/ServiceProviderConfig`]: { get: op('Get', 'ServiceProviderConfig', 'What this SCIM server supports') },
    [`${SCIM_PATH}/ResourceTypes`]: { get: op('Get', 'ResourceTypes', 'User and Group') },
    [`${SCIM_PATH}/Schemas`]: { get: op('Get', 'Schemas', 'The User, EnterpriseUser and Group schemas') },
    ...resourcePaths('Users', 'User (a person)', 'Users (persons, deactivated ones included)'),
    ...resourcePaths('Groups', 'Group (a role)', 'Groups (roles)'),
  },
  securitySchemes: {
    scimBearer: { type: 'http', scheme: 'bearer', description: 'An API client access token with the scope scim, from POST /oauth/token' },
  },
  schemas: {
    ScimResource: {
      type: 'object',
      description: 'A SCIM resource or message (schemas names which)',
      properties: { schemas: { type: 'array', items: { type: 'string' } } },
    },
    ScimError: {
      type: 'object',
      required: ['schemas', 'status', 'detail'],
      properties: {
        schemas: { type: 'array', items: { const: 'urn:ietf:params:scim:api:messages:2.0:Error' } },
        status: { type: 'string' },
        scimType: { type: 'string' },
        detail: { type: 'string' },
      },
    },
  },
};
