import fs from 'node:fs';
import path from 'node:path';
import { Router, type Request, type Response } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { TenantResolver } from '../../../platform/tenant-scope/tenant-resolver';
import { ApiError } from '../../../platform/errors/api-error';
import { unknownTenant } from '../../../platform/http/tenant-middleware';
import { sendHtml, suspendedPage, tenantLandingPage, unknownHostPage, wantsHtml } from './landing-page';
import { tenantHostName } from '../../../platform/tenant-scope/host-name';

const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

/** The page and every module and style sheet next to it, read once at start. */
function assets(): Record<string, { file: string; type: string }> {
  const found: Record<string, { file: string; type: string }> = { '/admin': { file: 'admin.html', type: 'text/html; charset=utf-8' } };
  for (const file of fs.readdirSync(__dirname)) {
    const type = TYPES[path.extname(file)];
    if (type) found[`/admin/${file}`] = { file, type };
  }
  return found;
}

/**
 * The tenant admin page: static HTML, CSS and same-origin ES modules (helmet's default
 * CSP allows script-src 'self', so no inline script and no nonce). The page talks to /api
 * on the same host; only known, active tenant hosts get it. `GET /` is the tenant's landing
 * page (links to the console's sign-in and the API docs). A browser (Accept: text/html
 * preferred) asking `/` or `/admin` of an unknown or suspended host gets a plain page with the
 * same status; other callers, and every other path, the JSON envelope.
 */
export function adminPageRoutes(container: DependencyContainer): Router {
  const resolver = container.resolve(TenantResolver);
  const files = new Map(Object.entries(assets()).map(([url, a]) => [url, { body: fs.readFileSync(path.join(__dirname, a.file)), type: a.type }]));
  const router = Router();
  /** The active tenant of the host, or undefined once the refusal has been answered (as a page or by the thrown envelope). */
  const tenantOf = async (req: Request, res: Response, page: boolean) => {
    const host = tenantHostName(req) ?? '';
    const tenant = host ? await resolver.byHostName(host) : null;
    const html = page && wantsHtml(req);
    if (!tenant) {
      if (html) return sendHtml(res, 404, unknownHostPage(host));
      throw unknownTenant(host);
    }
    if (tenant.status === 'suspended') {
      if (html) return sendHtml(res, 423, suspendedPage(tenant));
      throw new ApiError(423, `tenant ${tenant.slug} is suspended; contact the service operator`);
    }
    return tenant;
  };
  const serve = async (req: Request, res: Response) => {
    const url = req.path === '/admin/' ? '/admin' : req.path;
    if (!(await tenantOf(req, res, url === '/admin'))) return;
    const asset = files.get(url)!;
    res.set('Cache-Control', 'no-cache').type(asset.type).send(asset.body);
  };
  for (const url of [...files.keys(), '/admin/']) router.get(url, serve);
  router.get('/', async (req, res) => {
    const tenant = await tenantOf(req, res, true);
    if (!tenant) return;
    if (!wantsHtml(req)) throw new ApiError(404, `not found: ${req.method} ${req.path}; this is the API of ${tenant.name}: see /docs`);
    sendHtml(res, 200, tenantLandingPage(tenant));
  });
  return router;
}
