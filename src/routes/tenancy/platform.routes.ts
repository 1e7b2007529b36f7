import { z } from 'zod';
import type { RequestHandler } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { defineRoute, type RouteDefinition } from '../../platform/http/define-route';
import { access } from '../../platform/http/access';
import { p } from '../../platform/http/param-types';
import { mountOperatorRoutes } from '../../platform/http/operator-routes';
import { ApiError } from '../../platform/errors/api-error';
import { FirstAdmin, TenantAdminService } from '../../tenancy';
import { OperatorPasswordsFlow } from '../../flows/tenants/operator-passwords';
import { TenantView, checkedBy, cluster, origin, progress, slug } from './platform-views';
import { archiveRoutes } from './platform-archive.routes';
import { tenantInsideRoutes } from './platform-inside.routes';
import { placementRoutes } from './placement.routes';

const lifecycleRoutes = [
  defineRoute({
    method: 'get',
    path: '/tenants',
    access: access.operator,
    resource: 'tenants',
    summary: 'List tenants with status, hosts, cluster, schema version and size',
    input: z.object({}),
    output: TenantView,
    async handler(ctx) {
      return { items: await ctx.resolve(TenantAdminService).by(origin(ctx)).list() };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/tenants',
    access: access.operator,
    resource: 'tenants',
    created: true,
    summary: 'Create an empty tenant; with admin (and mail_from) also its first superuser',
    description:
      'Platform rows, schema and migrations in one transaction. With admin it also creates a root organisation named after the tenant and the first ' +
      'superuser in it, and mail_from sets mail.from (required then unless the platform has a default sender, MAIL_FROM); the superuser is mailed a password through the outbox and must change it at first login (418). ' +
      'A new tenant starts with api.oauth.require_expires_on = true (older tenants keep their value). ' +
      'A taken slug or host is a 409; a bad slug or host a 420. The schema goes to `cluster` when given (an unknown name is a 420), else to the cluster with ' +
      'the fewest tenants (ties: main, then TENANT_DATABASE_URLS in order); a pre-migrated spare schema is renamed when the cluster has one.',
    input: z.object({
      slug: p.text(),
      name: p.text(),
      hosts: p.stringList().optional().describe('its host names: hosts=a&hosts=b, hosts=a,b or a JSON array'),
      host: p.stringList().optional().describe('the same as hosts (when hosts is not given)'),
      cluster,
      mail_from: z.string().optional().describe('config item mail.from; required with admin unless MAIL_FROM (the platform default sender) is set'),
      admin: checkedBy(
        FirstAdmin,
        'the first superuser, created in a root organisation named after the tenant and mailed a password (must be changed at first login)',
      ).optional(),
    }),
    output: TenantView,
    async handler(ctx, input) {
      const tenant = { slug: input.slug, name: input.name, hosts: input.hosts ?? input.host ?? [], cluster: input.cluster || undefined };
      if (input.admin === undefined || input.admin === null) {
        const t = await ctx.resolve(TenantAdminService).by(origin(ctx)).create(tenant);
        return { items: [t], message: `tenant ${t.slug} created` };
      }
      const t = await ctx.resolve(OperatorPasswordsFlow).createWithAdmin(origin(ctx), { ...tenant, mailFrom: input.mail_from }, input.admin);
      return { items: [t], message: `tenant ${t.slug} created; a password was mailed to its first superuser` };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/tenants/:slug',
    access: access.operator,
    resource: 'tenants',
    summary: 'One tenant',
    input: z.object({ slug }),
    output: TenantView,
    async handler(ctx, input) {
      return { items: [await ctx.resolve(TenantAdminService).by(origin(ctx)).get(input.slug)] };
    },
  }),
  // Like the CLI's --yes-delete-everything: the caller repeats the slug in `confirm`.
  defineRoute({
    method: 'delete',
    path: '/tenants/:slug',
    access: access.operator,
    resource: 'tenants',
    summary: 'Delete a tenant and all its data (confirm=<slug>)',
    description:
      'Without confirm repeating the slug: 409. Drops the schema and the platform rows, then runs every purger (Redis keys t:<id>:*, queued jobs, ' +
      'the file store namespace); the answer lists what they removed. A job a worker holds at that moment ends failed on its own.',
    input: z.object({ slug, confirm: z.string().optional().describe('the slug again') }),
    output: TenantView,
    extras: { purged: z.array(z.string()).describe('what each purger removed, "<purger>: <what>"') },
    async handler(ctx, input) {
      if (input.confirm !== input.slug) {
        throw new ApiError(409, `deleting tenant ${input.slug} drops all its data; repeat the slug as confirm=${input.slug} to proceed`);
      }
      const report = await ctx.resolve(TenantAdminService).by(origin(ctx)).delete(input.slug);
      return { body: { valid: true, message: `tenant ${input.slug} deleted`, tenants: [], purged: report.purged } };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/tenants/:slug/hosts',
    access: access.operator,
    resource: 'tenants',
    summary: 'Add a host name',
    input: z.object({ slug, host: p.text().describe('the host name') }),
    output: TenantView,
    async handler(ctx, input) {
      return { items: [await ctx.resolve(TenantAdminService).by(origin(ctx)).addHost(input.slug, input.host)], message: 'host added' };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/tenants/:slug/hosts/:host',
    access: access.operator,
    resource: 'tenants',
    summary: 'Remove a host name',
    description: 'The last host is refused (409): a tenant without a host cannot be reached; suspend it instead.',
    input: z.object({ slug, host: z.string().describe('the host name') }),
    output: TenantView,
    async handler(ctx, input) {
      return { items: [await ctx.resolve(TenantAdminService).by(origin(ctx)).removeHost(input.slug, input.host)], message: 'host removed' };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/tenants/:slug/suspend',
    access: access.operator,
    resource: 'tenants',
    summary: 'Suspend a tenant (its API answers 423)',
    description: 'Every request to the tenant (API and admin page) answers 423; the data stays. All processes see the change within a second.',
    input: z.object({ slug }),
    output: TenantView,
    async handler(ctx, input) {
      return { items: [await ctx.resolve(TenantAdminService).by(origin(ctx)).suspend(input.slug)], message: 'tenant suspended' };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/tenants/:slug/resume',
    access: access.operator,
    resource: 'tenants',
    summary: 'Resume a suspended tenant',
    input: z.object({ slug }),
    output: TenantView,
    async handler(ctx, input) {
      return { items: [await ctx.resolve(TenantAdminService).by(origin(ctx)).resume(input.slug)], message: 'tenant resumed' };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/migrate',
    access: access.operator,
    resource: 'tenants',
    summary: 'Migrate every tenant schema',
    description:
      'The platform schema, then every tenant, each in its own transaction; progress lines in the answer; a 500 envelope when a tenant failed. A tenant whose ' +
      'migration failed answers 503 (Retry-After: 60) until a later run succeeds; the others are unaffected.',
    input: z.object({}),
    output: z
      .object({
        slug: z.string(),
        schema: z.string(),
        applied: z.array(z.string()).describe('the migrations this run applied'),
        error: z.string().optional().describe('why its migration failed'),
      })
      .meta({ id: 'TenantMigration' }),
    extras: { progress },
    async handler(ctx) {
      const lines: string[] = [];
      const report = await ctx
        .resolve(TenantAdminService)
        .by(origin(ctx))
        .migrateAll((l) => lines.push(l));
      const message = report.ok ? 'all schemas up to date' : 'some tenants failed to migrate';
      return {
        status: report.ok ? 200 : 500,
        body: { valid: report.ok, message, ...(report.ok ? {} : { errorcode: 500 }), progress: lines, tenants: report.tenants },
      };
    },
  }),
];

/** Every call of the operator API, mounted under /platform (app.ts) and documented under tag platform. */
export const operatorRoutes: RouteDefinition<any>[] = [...lifecycleRoutes, ...archiveRoutes, ...tenantInsideRoutes, ...placementRoutes];

/**
 * The operator API: the CLI's tenant operations as JSON under /platform, outside any tenant,
 * behind PLATFORM_ADMIN_TOKEN. Whole tenant documents arrive here, so bodies may be larger and
 * nest deeper (organisation and competence trees) than the tenant API's parameters.
 */
export function platformRoutes(container: DependencyContainer): RequestHandler {
  return mountOperatorRoutes(container, operatorRoutes, { jsonLimit: '100mb', maxDepth: 256 });
}
