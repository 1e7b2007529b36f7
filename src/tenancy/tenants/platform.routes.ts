import express, { Router, type Request } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { ENV } from '../../platform/tokens';
import { requirePlatformToken } from '../../platform/http/require-platform-token';
import { okEnvelope } from '../../platform/http/envelope';
import { ApiError } from '../../platform/errors/api-error';
import { TenantAdminService } from './tenant-admin.service';
import { TenantOperator } from './tenant-operator';
import { checkInputValues, inputGuard } from '../../platform/http/input-guard';
import { ARCHIVE_FORMAT } from './archive/tenant-archive.format';
import { placementRoutes } from './placement/placement.routes';

const ARCHIVE_TYPES = ['application/gzip', 'application/x-gzip', 'application/octet-stream'];

/** A body or query parameter as a list: hosts=a&hosts=b, hosts=a,b or a JSON array. */
function list(v: unknown): string[] | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  const items = Array.isArray(v) ? v : [v];
  return items.flatMap((x) => String(x).split(',')).map((x) => x.trim()).filter(Boolean);
}

function param(req: Request, name: string): unknown {
  return (req.body && typeof req.body === 'object' ? req.body[name] : undefined) ?? (req.query as any)[name];
}

function text(req: Request, name: string): string {
  const v = param(req, name);
  if (v === undefined || v === '') throw ApiError.missing(name);
  if (typeof v !== 'string') throw ApiError.malformed(name, 'must be a string');
  return v;
}

/** `{"value": null}` clears an item, so a JSON null must not fall through to the query. */
function valueParam(req: Request): unknown {
  return req.body && typeof req.body === 'object' && 'value' in req.body ? req.body.value : (req.query as any).value;
}

const isTrue = (v: unknown) => ['1', 'true', 'yes', 'on'].includes(String(v ?? '').toLowerCase());

/**
 * The operator API: the CLI's tenant operations as JSON under /platform, outside any
 * tenant, guarded by PLATFORM_ADMIN_TOKEN. Answers use the envelope with `tenants`.
 */
export function platformRoutes(container: DependencyContainer): Router {
  const router = Router();
  router.use(requirePlatformToken(container.resolve(ENV)));
  // Whole tenant documents arrive here, so the limit is larger than the tenant API's.
  router.use(express.json({ limit: '100mb' }));
  router.use(express.urlencoded({ extended: true, limit: '1mb' }));
  // Tenant documents nest organisation and competence trees: deeper than API parameters ever do.
  router.use(inputGuard(256));
  for (const name of ['slug', 'host']) router.param(name, (_req, _res, next, value) => (checkInputValues(value, [name]), next()));
  const admin = (req: Request) => container.resolve(TenantAdminService).by({ via: 'http', ip: req.ip ?? null });
  const operator = (req: Request) => new TenantOperator(container, { via: 'http', ip: req.ip ?? null });
  const one = (message: string) => (t: object) => okEnvelope('tenants', [t], message);

  router.get('/tenants', async (req, res) => {
    res.json(okEnvelope('tenants', await admin(req).list()));
  });
  router.post('/tenants', async (req, res) => {
    const cluster = param(req, 'cluster');
    if (cluster !== undefined && typeof cluster !== 'string') throw ApiError.malformed('cluster', 'must be the name of a cluster');
    const input = { slug: text(req, 'slug'), name: text(req, 'name'), hosts: list(param(req, 'hosts') ?? param(req, 'host')) ?? [], cluster: cluster || undefined };
    const first = param(req, 'admin');
    const t = first === undefined ? await admin(req).create(input) : await operator(req).createWithAdmin({ ...input, mailFrom: param(req, 'mail_from') }, first);
    res.status(201).json(one(`tenant ${t.slug} created${first === undefined ? '' : '; a password was mailed to its first superuser'}`)(t));
  });
  // A tenant-archive/1 arrives as the raw body (gzip); a tenant-import/1 document as JSON.
  router.post('/tenants/import', async (req, res) => {
    const q = req.query as Record<string, unknown>;
    const lines: string[] = [];
    const options = { slug: q.slug as string | undefined, hosts: list(q.host ?? q.hosts), cluster: typeof q.cluster === 'string' && q.cluster ? q.cluster : undefined, onProgress: (l: string) => lines.push(l) };
    const t = req.is(ARCHIVE_TYPES) ? await admin(req).importArchive(req, options) : await admin(req).import(req.body, options);
    res.status(201).json({ ...one(`tenant ${t.slug} imported`)(t), progress: lines });
  });
  router.get('/tenants/:slug', async (req, res) => {
    res.json(okEnvelope('tenants', [await admin(req).get(req.params.slug)]));
  });
  // The archive by default (everything); ?format=tenant-import/1 keeps the bare JSON document
  // (no envelope, so it can be posted back) for clients of the older format.
  router.get('/tenants/:slug/export', async (req, res) => {
    const slug = req.params.slug;
    const secrets = req.query.secrets === undefined ? true : isTrue(req.query.secrets);
    const format = req.query.format ?? ARCHIVE_FORMAT;
    if (format === 'tenant-import/1') return void res.json(await admin(req).export(slug, { secrets }));
    if (format !== ARCHIVE_FORMAT) throw ApiError.malformed('format', `must be ${ARCHIVE_FORMAT} or tenant-import/1`);
    const passwordHashes = req.query.password_hashes === undefined ? true : isTrue(req.query.password_hashes);
    // An unknown tenant is a 404 envelope, so look it up before the first byte of the archive.
    await admin(req).get(slug);
    res.setHeader('Content-Type', 'application/gzip');
    res.setHeader('Content-Disposition', `attachment; filename="${slug}.tenant.tar.gz"`);
    try {
      await admin(req).exportArchive(slug, res, { secrets, passwordHashes });
    } catch (err) {
      if (res.headersSent) return void res.destroy(err as Error);
      res.removeHeader('Content-Type');
      res.removeHeader('Content-Disposition');
      throw err;
    }
  });
  router.get('/tenants/:slug/configitems', async (req, res) => {
    res.json(okEnvelope('configitems', await operator(req).configItems(req.params.slug)));
  });
  router.put('/tenants/:slug/configitems/:config_item_id', async (req, res) => {
    const item = await operator(req).setConfigItem(req.params.slug, req.params.config_item_id, valueParam(req));
    res.json(okEnvelope('configitems', [item], 'config item saved'));
  });
  router.post('/tenants/:slug/persons/:user_name/reset_password', async (req, res) => {
    const p = await operator(req).resetPassword(req.params.slug, req.params.user_name);
    res.json(okEnvelope('persons', [p], `a new password was sent to ${p.user_name}`));
  });
  router.post('/tenants/:slug/hosts', async (req, res) => {
    res.json(one('host added')(await admin(req).addHost(req.params.slug, text(req, 'host'))));
  });
  router.delete('/tenants/:slug/hosts/:host', async (req, res) => {
    res.json(one('host removed')(await admin(req).removeHost(req.params.slug, req.params.host)));
  });
  router.post('/tenants/:slug/suspend', async (req, res) => {
    res.json(one('tenant suspended')(await admin(req).suspend(req.params.slug)));
  });
  router.post('/tenants/:slug/resume', async (req, res) => {
    res.json(one('tenant resumed')(await admin(req).resume(req.params.slug)));
  });
  // Like the CLI's --yes-delete-everything: the caller repeats the slug in `confirm`.
  router.delete('/tenants/:slug', async (req, res) => {
    const slug = req.params.slug;
    if (param(req, 'confirm') !== slug) {
      throw new ApiError(409, `deleting tenant ${slug} drops all its data; repeat the slug as confirm=${slug} to proceed`);
    }
    const report = await admin(req).delete(slug);
    res.json({ ...okEnvelope('tenants', [], `tenant ${slug} deleted`), purged: report.purged });
  });
  placementRoutes(router, container, (req) => ({ via: 'http', ip: req.ip ?? null }));
  router.post('/migrate', async (req, res) => {
    const lines: string[] = [];
    const report = await admin(req).migrateAll((l) => lines.push(l));
    res.status(report.ok ? 200 : 500).json({
      valid: report.ok,
      message: report.ok ? 'all schemas up to date' : 'some tenants failed to migrate',
      ...(report.ok ? {} : { errorcode: 500 }),
      progress: lines,
      tenants: report.tenants,
    });
  });
  router.use((req) => {
    throw new ApiError(404, `unknown operator call: ${req.method} ${req.baseUrl}${req.path}`);
  });
  return router;
}
