import type { Request, Response } from 'express';
import type { Tenant } from '../../../platform/tenant-scope/tenant';
import { isValidHostName } from '../../../platform/tenant-scope/host-name';

/** Text into HTML: the tenant's name and the host are data, never markup. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A whole page; `stylesheet` only where the host serves /admin/*.css (a known tenant). No inline script or style. */
export function page(title: string, body: string, stylesheet = false): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '  <meta charset="utf-8">',
    '  <meta name="viewport" content="width=device-width, initial-scale=1">',
    `  <title>${escapeHtml(title)}</title>`,
    stylesheet ? '  <link rel="stylesheet" href="/admin/admin.css">' : '',
    '</head>',
    `<body${stylesheet ? ' class="landing"' : ''}>`,
    body,
    '</body>',
    '</html>',
    '',
  ]
    .filter((line) => line !== '')
    .join('\n');
}

/** What a person opening the tenant's address in a browser sees: where to sign in and where the API is described. */
export function tenantLandingPage(tenant: Pick<Tenant, 'name'>): string {
  const name = escapeHtml(tenant.name);
  return page(
    tenant.name,
    `<header>
  <h1>${name}</h1>
</header>
<main>
  <p>This address is the competence and training service of ${name}. People use it through their organisation's own systems
  (intranet, learning portal, apps); there is nothing to browse here.</p>
  <ul class="landing-links">
    <li><a href="/admin">Admin console</a>: sign in as an administrator of ${name} to manage settings, the catalogue and the course calendar.</li>
    <li><a href="/docs">API documentation</a>: every call, its parameters and who may make it (machine-readable: <a href="/api/openapi.json">OpenAPI document</a>).</li>
  </ul>
</main>`,
    true,
  );
}

/** A plain page for a host that no tenant uses (or a malformed Host header, which is not echoed). */
export function unknownHostPage(host: string): string {
  const where = host && isValidHostName(host) ? escapeHtml(host) : 'This address';
  return page(
    'No organisation at this address',
    `<main>
  <h1>No organisation at this address</h1>
  <p>${where} serves no organisation. Check the address you were given, or ask the person who sent it.</p>
</main>`,
  );
}

/** A plain page for a suspended tenant (the API answers the same with 423). */
export function suspendedPage(tenant: Pick<Tenant, 'name'>): string {
  return page(
    `${tenant.name}: suspended`,
    `<main>
  <h1>${escapeHtml(tenant.name)}</h1>
  <p>This service is suspended. Contact the service operator.</p>
</main>`,
  );
}

/**
 * Does the caller prefer a page to the JSON envelope? Browsers ask for text/html first; a client
 * that sends no Accept, or * / * alone (curl), keeps getting the envelope as every other path answers.
 */
export const wantsHtml = (req: Request): boolean => !!req.headers.accept && req.accepts(['json', 'html']) === 'html';

export function sendHtml(res: Response, status: number, html: string): void {
  res.status(status).set('Cache-Control', 'no-cache').type('text/html; charset=utf-8').send(html);
}
