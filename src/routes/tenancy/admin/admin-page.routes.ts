import fs from 'node:fs';
import path from 'node:path';
import { Router, type Request, type Response } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { TenantResolver } from '../../../platform/tenant-scope/tenant-resolver';
import { ApiError } from '../../../platform/errors/api-error';
import { unknownTenant } from '../../../platform/http/tenant-middleware';

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
 * on the same host; only known, active tenant hosts get it.
 */
export function adminPageRoutes(container: DependencyContainer): Router {
  const resolver = container.resolve(TenantResolver);
  const files = new Map(
    Object.entries(assets()).map(([url, a]) => [url, { body: fs.readFileSync(path.join(__dirname, a.file)), type: a.type }]),
  );
  const router = Router();
  const serve = async (req: Request, res: Response) => {
    const tenant = await resolver.byHostName(req.hostname ?? '');
    if (!tenant) throw unknownTenant(req.hostname ?? '');
    if (tenant.status === 'suspended') throw new ApiError(423, `tenant ${tenant.slug} is suspended; contact the service operator`);
    const asset = files.get(req.path === '/admin/' ? '/admin' : req.path)!;
    res.set('Cache-Control', 'no-cache').type(asset.type).send(asset.body);
  };
  for (const url of [...files.keys(), '/admin/']) router.get(url, serve);
  return router;
}
