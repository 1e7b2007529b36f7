/**
 * POST /oauth/token in the OpenAPI document. Its wire format is RFC 6749's (form in, JSON out,
 * errors as {error, error_description}), not the API's envelope, so it is written by hand here
 * next to oauth-token.http.ts instead of being generated from a defineRoute.
 */
const oauthError = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'string',
      enum: ['invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope', 'slow_down'],
    },
    error_description: { type: 'string' },
  },
};

const failure = (description: string) => ({ description, content: { 'application/json': { schema: oauthError } } });

export const oauthTokenOpenApi = {
  '/oauth/token': {
    post: {
      operationId: 'postOauthToken',
      summary: 'Issue an access token to an API client (OAuth 2.0 client credentials, RFC 6749 §4.4)',
      description:
        'Access: an API client of this tenant, authenticated by client_secret_basic (Authorization: Basic client_id:client_secret) or client_secret_post (client_id and client_secret in the form).\n\n' +
        "On the tenant's host. Answers RFC 6749 JSON with Cache-Control: no-store; the token is opaque, works only on this tenant's host and ends after expires_in seconds (OAUTH_TOKEN_TTL_SECONDS, default 3600), at revocation of the client or rotation of its secret. Throttled like POST /api/login (429 with Retry-After).",
      tags: ['apiclients'],
      security: [],
      'x-access': 'an API client of this tenant (client_secret_basic or client_secret_post)',
      requestBody: {
        required: true,
        content: {
          'application/x-www-form-urlencoded': {
            schema: {
              type: 'object',
              required: ['grant_type'],
              properties: {
                grant_type: { const: 'client_credentials' },
                scope: { type: 'string', description: "space-separated subset of the client's scopes (api.read, api.write, scim); default: all of them" },
                client_id: { type: 'string', description: 'client_secret_post only' },
                client_secret: { type: 'string', description: 'client_secret_post only' },
              },
            },
          },
        },
      },
      responses: {
        '200': {
          description: 'RFC 6749 §5.1 access token answer',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['access_token', 'token_type', 'expires_in', 'scope'],
                properties: {
                  access_token: { type: 'string' },
                  token_type: { const: 'Bearer' },
                  expires_in: { type: 'integer', minimum: 1 },
                  scope: { type: 'string' },
                },
              },
            },
          },
        },
        '400': failure('RFC 6749 §5.2: invalid_request, unsupported_grant_type, invalid_scope'),
        '401': failure('invalid_client: unknown client, wrong secret or revoked client (WWW-Authenticate: Basic)'),
        '404': failure('unknown tenant host'),
        '405': failure('a method other than POST'),
        '429': { ...failure('too many failed attempts: wait Retry-After seconds'), headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' } } },
        // a dependency's outage leaves for the app's error answer, the envelope
        '503': {
          description: 'errorcode 503: a dependency (database, Redis) is unavailable; retry after Retry-After seconds',
          headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' } },
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
        },
      },
    },
  },
} as const;
