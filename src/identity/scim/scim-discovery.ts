import { CORE_GROUP_SCHEMA, CORE_USER_SCHEMA, ENTERPRISE_USER_SCHEMA } from './scim-attribute-path';

export const LIST_RESPONSE_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
const SPC_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig';
const RESOURCE_TYPE_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ResourceType';
const SCHEMA_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Schema';

/** The most resources one GET answers (`count` above it is served as this). */
export const SCIM_MAX_RESULTS = 200;

type Attr = Record<string, unknown>;

function attr(
  name: string,
  o: {
    type?: string;
    multi?: boolean;
    required?: boolean;
    caseExact?: boolean;
    mutability?: string;
    uniqueness?: string;
    returned?: string;
    sub?: Attr[];
    description?: string;
  } = {},
): Attr {
  return {
    name,
    type: o.type ?? (o.sub ? 'complex' : 'string'),
    multiValued: o.multi ?? false,
    description: o.description ?? name,
    required: o.required ?? false,
    ...(o.sub ? { subAttributes: o.sub } : { caseExact: o.caseExact ?? false }),
    mutability: o.mutability ?? 'readWrite',
    returned: o.returned ?? 'default',
    uniqueness: o.uniqueness ?? 'none',
  };
}

const typed = (types: string[]) => [attr('value'), attr('type', { description: `only ${types.join(', ')} are kept` }), attr('primary', { type: 'boolean' })];

const USER_ATTRIBUTES = [
  attr('userName', { required: true, uniqueness: 'server', description: "the person's user_name" }),
  attr('name', {
    sub: [attr('givenName', { description: 'firstname' }), attr('familyName', { description: 'lastname' }), attr('formatted', { mutability: 'readOnly' })],
  }),
  attr('displayName', { mutability: 'readOnly', description: 'given and family name' }),
  attr('title', { description: 'jobtitle' }),
  attr('emails', { multi: true, sub: typed(['work (or the primary one)']), description: 'one address is kept: the primary one, else work, else the first' }),
  attr('phoneNumbers', { multi: true, sub: typed(['mobile', 'work']), description: 'mobile (+ and 6-15 digits) and work (phone)' }),
  attr('active', { type: 'boolean', description: 'false deactivates the person (login, sessions and SWT end at once)' }),
  attr('externalId', { caseExact: true, description: 'extern_person_id' }),
  attr('preferredLanguage', {
    description: "the person's language (person_data[language]): a BCP 47 tag, the first of an Accept-Language list, stored in canonical form (nb-no: nb-NO)",
  }),
];

const ENTERPRISE_ATTRIBUTES = [
  attr('employeeNumber', { description: 'employee_code' }),
  attr('department', { description: "the person's organisation: matched by external id, then name; unknown: the API client's default organisation" }),
  attr('manager', { sub: [attr('value', { description: "the manager's id, stored as sent" }), attr('displayName', { mutability: 'readOnly' })] }),
];

const GROUP_ATTRIBUTES = [
  attr('displayName', { required: true, description: "the role's name" }),
  attr('externalId', { caseExact: true }),
  attr('members', {
    multi: true,
    sub: [attr('value', { mutability: 'immutable' }), attr('display', { mutability: 'readOnly' }), attr('type', { mutability: 'immutable' })],
    description: 'the persons holding the role',
  }),
];

export function serviceProviderConfig(base: string): Record<string, unknown> {
  return {
    schemas: [SPC_SCHEMA],
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: SCIM_MAX_RESULTS },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'OAuth Bearer Token',
        description: 'An access token of an API client with the scope scim, from POST /oauth/token (client credentials) on the tenant host',
        specUri: 'https://www.rfc-editor.org/rfc/rfc6750',
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
  };
}

export function resourceTypes(base: string): Record<string, unknown>[] {
  return [
    {
      schemas: [RESOURCE_TYPE_SCHEMA],
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      description: 'A person of the tenant',
      schema: CORE_USER_SCHEMA,
      schemaExtensions: [{ schema: ENTERPRISE_USER_SCHEMA, required: false }],
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/User` },
    },
    {
      schemas: [RESOURCE_TYPE_SCHEMA],
      id: 'Group',
      name: 'Group',
      endpoint: '/Groups',
      description: 'A role of the tenant; its members hold it',
      schema: CORE_GROUP_SCHEMA,
      schemaExtensions: [],
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/Group` },
    },
  ];
}

export function schemas(base: string): Record<string, unknown>[] {
  const one = (id: string, name: string, attributes: Attr[]) => ({
    schemas: [SCHEMA_SCHEMA],
    id,
    name,
    description: name,
    attributes,
    meta: { resourceType: 'Schema', location: `${base}/Schemas/${id}` },
  });
  return [
    one(CORE_USER_SCHEMA, 'User', USER_ATTRIBUTES),
    one(ENTERPRISE_USER_SCHEMA, 'EnterpriseUser', ENTERPRISE_ATTRIBUTES),
    one(CORE_GROUP_SCHEMA, 'Group', GROUP_ATTRIBUTES),
  ];
}

/** A ListResponse (RFC 7644 §3.4.2). */
export function listResponse(resources: unknown[], total: number, startIndex: number): Record<string, unknown> {
  return { schemas: [LIST_RESPONSE_SCHEMA], totalResults: total, startIndex, itemsPerPage: resources.length, Resources: resources };
}
