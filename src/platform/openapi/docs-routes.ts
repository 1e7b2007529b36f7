import type { Express } from 'express';
import swaggerUi from 'swagger-ui-express';
import type { RouteGroup } from '../http/define-route';
import { buildOpenApiDocument, errorcodeTable, type OpenApiExtra } from './openapi-document';

const DESCRIPTION = `Multi-tenant HTTP JSON API. The tenant is chosen by the Host header.

Every response is the envelope \`{valid, message, errorcode?, <resource>: [...]}\`.

| errorcode | HTTP status | meaning |
|---|---|---|
${errorcodeTable()}

Parameters may come in the query string, a form body or a JSON body; lists as \`ids=1&ids=2\`,
\`ids[]=1\` or \`ids=1,2\`; nested objects in bracket form (\`person_data[email]=x\`).
Paging: limit 1-100 (default 20; a larger limit is served as 100 and the message says so), offset (default 0), start (deprecated alias).
\`fields=a,b\` keeps only those attributes of each returned object; \`view=simple|full\`.

Bad input is a 419/420 naming the parameter, never a 500: text may not hold NUL or unpaired surrogates;
integers are digits only (no 1e5, 0x1, NaN, "") within their column's range (int4, -2147483648..2147483647,
unless documented otherwise); lists hold at most 1,000 values; query strings nest at most 5 bracket levels,
form and JSON bodies at most 32 levels (deeper is refused, never flattened); survey \`data\` nests at most
10 item levels; bodies are at most 1 MiB (413). A database or Redis outage is a 503 with \`Retry-After\`;
two identical writes at once answer as if sent one after the other (success, or a 409).
An object of another tenant is not found (404), whatever its id.

Every POST, PUT /api/personcompetences/[id] and the back office's PUTs and DELETEs (marked in each operation) take an \`Idempotency-Key\` header (IETF httpapi draft, 1-255 printable
characters, kept 24 hours per tenant and caller): a repeat of the same request replays the stored 2xx answer with
\`Idempotent-Replayed: true\` and does nothing again; the same key with another request is HTTP 422 (errorcode 420); a repeat
while the first runs is 409 with Retry-After. Input checks and the access rule run before a key is recorded, and a 4xx or 5xx
answer is not kept (the same key with the input fixed runs). A caller holds at most IDEMPOTENCY_MAX_KEYS keys (429 past it).
An answer that carried a secret shown once is not kept: a repeat is 409 "already done". Anonymous calls and answers that set a cookie are not kept.

Every /api answer carries the IETF ratelimit-headers fields, e.g. \`RateLimit-Policy: "minute";q=1200;w=60\` and
\`RateLimit: "minute";r=1187;t=42\` (r: requests left, t: seconds until the window resets), counted per caller (the person,
else the client address) in a one-minute window of the tenant's config item api.rate_limit.per_minute (default 1200), never
above the platform's ceiling (API_RATE_LIMIT_CEILING_PER_MINUTE, default 6000, which also applies when the item is empty);
past it 429 with Retry-After. The window counts points: a call takes its operation's x-rate-limit-cost (1 for most; more for
exports, imports, an organisation's competence level; x-rate-limit-cost-when names the parameter that makes a call heavier,
e.g. view=full of a list).

An API client (POST /api/apiclients) gets a token from POST /oauth/token (OAuth 2.0 client credentials, RFC 6749 JSON, not the
envelope) and sends \`Authorization: Bearer <token>\`: it acts with its run-as person's rights, GET only with api.read (else 403).

A POST, PUT or DELETE authenticated by the tg-visit cookie from an Origin (or Referer) that is neither the tenant's host nor
listed in cors.origins is refused (403); SWT requests and requests without either header pass.

The operator API under /platform (tag platform) runs outside any tenant, whatever the Host header: every call needs
\`Authorization: Bearer <PLATFORM_ADMIN_TOKEN>\` (401 without it or with a wrong one; 404 on every path while no token is
configured). It has no rate limit, cross-site check or Idempotency-Key; bodies may be up to 100 MB (tenant documents).`;

/** The document /api/openapi.json serves and `npm run openapi` writes. */
export function apiDocument(groups: readonly RouteGroup[], version: string, extra?: OpenApiExtra) {
  return buildOpenApiDocument(groups, { version, description: DESCRIPTION }, extra);
}

/** The document as bytes: two-space JSON and a final newline, the same on every Node version. */
export function apiDocumentText(groups: readonly RouteGroup[], version: string, extra?: OpenApiExtra): string {
  return `${JSON.stringify(apiDocument(groups, version, extra), null, 2)}\n`;
}

/**
 * GET /api/openapi.json and the rendered docs at /docs; the same on every host. Added to the app
 * at their paths, not as a router of their own that every request would walk through.
 */
export function mountDocs(app: Express, groups: readonly RouteGroup[], version: string, extra?: OpenApiExtra): void {
  const document = apiDocument(groups, version, extra);
  app.get('/api/openapi.json', (_req, res) => {
    res.json(document);
  });
  app.use('/docs', swaggerUi.serveFiles(document), swaggerUi.setup(document, { customSiteTitle: 'API docs' }));
}
