import { Router } from 'express';
import swaggerUi from 'swagger-ui-express';
import type { RouteDefinition } from '../http/define-route';
import { buildOpenApiDocument, errorcodeTable } from './openapi-document';

const DESCRIPTION = `Multi-tenant HTTP JSON API. The tenant is chosen by the Host header.

Every response is the envelope \`{valid, message, errorcode?, <resource>: [...]}\`.

| errorcode | HTTP status | meaning |
|---|---|---|
${errorcodeTable()}

Parameters may come in the query string, a form body or a JSON body; lists as \`ids=1&ids=2\`,
\`ids[]=1\` or \`ids=1,2\`; nested objects in bracket form (\`person_data[email]=x\`).
Paging: limit 1-100 (default 20; more is a 420), offset (default 0), start (deprecated alias).
\`fields=a,b\` keeps only those attributes of each returned object; \`view=simple|full\`.`;

/** GET /api/openapi.json and the rendered docs at /docs; the same on every host. */
export function docsRoutes(routes: readonly RouteDefinition[], version: string): Router {
  const document = buildOpenApiDocument(routes, { version, description: DESCRIPTION });
  const router = Router();
  router.get('/api/openapi.json', (_req, res) => {
    res.json(document);
  });
  router.use('/docs', swaggerUi.serveFiles(document), swaggerUi.setup(document, { customSiteTitle: 'API docs' }));
  return router;
}
