import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { access } from '../../platform/http/access';
import { p } from '../../platform/http/param-types';
import { CLUSTERS } from '../../platform/clusters/clusters';
import { BulkProvisioner, BulkTenant, SpareSchemas, TenantAdminService, TenantMover, TenantPlacement } from '../../tenancy';
import { TenantView, checkedBy, origin, progress, slug } from './platform-views';

/** Longest old-copy grace an HTTP caller may ask for: the request waits for it. */
const MAX_DROP_AFTER_SECONDS = 300;
const DROP_AFTER = `must be 0-${MAX_DROP_AFTER_SECONDS}`;

/** /platform/clusters, /platform/tenants/bulk and /platform/tenants/:slug/move (src/tenancy/tenants/placement/README.md). */
export const placementRoutes = [
  defineRoute({
    method: 'get',
    path: '/clusters',
    access: access.operator,
    resource: 'clusters',
    summary: 'The PostgreSQL clusters with their tenants and spare schemas',
    description:
      'main is DATABASE_URL (also the platform database); the others come from TENANT_DATABASE_URLS, in the order declared. `clusters`: name, tenants, spare_schemas.',
    input: z.object({}),
    output: z.object({ name: z.string(), tenants: z.number().int(), spare_schemas: z.number().int() }).meta({ id: 'Cluster' }),
    async handler(ctx) {
      const counts = await ctx.resolve(TenantPlacement).counts();
      const spares = ctx.resolve(SpareSchemas);
      const clusters = [];
      for (const name of ctx.resolve(CLUSTERS).names) clusters.push({ name, tenants: counts.get(name) ?? 0, spare_schemas: await spares.count(name) });
      return { items: clusters };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/tenants/bulk',
    access: access.operator,
    resource: 'tenants',
    created: true,
    summary: 'Create many empty tenants (bulk provisioning)',
    description:
      'Each tenant is its own import (placement rule, a spare schema renamed when there is one), four at a time; a bad or taken one fails alone and is listed in ' +
      '`failed`. Spare top-ups wait until the end. Answers created, failed, from_spares, seconds and progress lines.',
    input: z.object({
      // Each line is checked by the provisioner, which names the bad one (tenants[3].slug).
      tenants: z.array(checkedBy(BulkTenant, 'one tenant, as a line of npm run tenant -- create-many')).describe('the tenants to create'),
    }),
    extras: {
      created: z.number().int(),
      failed: z.array(z.object({ slug: z.string(), error: z.string() }).meta({ id: 'TenantCreationFailure' })),
      from_spares: z.number().int().describe('how many got a pre-migrated spare schema'),
      seconds: z.number(),
      progress,
    },
    async handler(ctx, input) {
      const lines: string[] = [];
      const r = await ctx.resolve(BulkProvisioner).createMany(input.tenants, { via: origin(ctx).via, onProgress: (l) => lines.push(l) });
      return {
        body: {
          valid: true,
          message: `${r.created} tenants created, ${r.failed.length} failed`,
          tenants: [],
          created: r.created,
          failed: r.failed,
          from_spares: r.fromSpares,
          seconds: r.seconds,
          progress: lines,
        },
      };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/tenants/:slug/move',
    access: access.operator,
    resource: 'tenants',
    summary: 'Move a tenant to another PostgreSQL cluster while it keeps serving',
    description:
      'Copies the schema while the tenant serves (writes are captured), then pauses writes for a moment (they answer 503 with Retry-After: 1, or wait a ' +
      'little), copies what was written meanwhile, verifies the row count of every table, fences the old copy, switches the placement and tells every ' +
      'API and worker process at once (Redis pub/sub); reads work throughout. The old copy is dropped drop_after_seconds later (default 15). A move that ' +
      'fails before the switch leaves the tenant where it was, serving. The answer holds the tenant, `move` (rows, write_pause_ms, seconds) and progress ' +
      'lines. Unknown cluster 420; already there, or a move of it running, 409.',
    input: z.object({
      slug,
      to: p.text('must be the name of a cluster').describe('the cluster to move to'),
      // Seconds as a number, fractions too (a JSON number or its text); absent or null: 15.
      drop_after_seconds: z
        .unknown()
        .optional()
        .transform((v) => (v === undefined || v === null ? 15 : Number(v)))
        .pipe(z.number({ error: DROP_AFTER }).min(0, DROP_AFTER).max(MAX_DROP_AFTER_SECONDS, DROP_AFTER))
        .meta({ type: 'number', description: `keep the fenced old copy this long (0-${MAX_DROP_AFTER_SECONDS} seconds, default 15)` }),
    }),
    output: TenantView,
    extras: {
      move: z
        .object({
          from: z.string(),
          to: z.string(),
          tables: z.number().int(),
          rows: z.number().int(),
          changed_rows: z.number().int().describe('rows copied again in the write pause'),
          write_pause_ms: z.number(),
          seconds: z.number(),
        })
        .meta({ id: 'TenantMove' }),
      progress,
    },
    async handler(ctx, input) {
      const lines: string[] = [];
      const r = await ctx.resolve(TenantMover).move(input.slug, input.to, { dropAfterMs: input.drop_after_seconds * 1000, onProgress: (l) => lines.push(l) });
      const summary = await ctx.resolve(TenantAdminService).by(origin(ctx)).get(r.slug);
      return {
        body: {
          valid: true,
          message: `tenant ${r.slug} moved from ${r.from} to ${r.to}; writes paused ${r.writePauseMs} ms`,
          tenants: [summary],
          move: { from: r.from, to: r.to, tables: r.tables, rows: r.rows, changed_rows: r.changedRows, write_pause_ms: r.writePauseMs, seconds: r.seconds },
          progress: lines,
        },
      };
    },
  }),
];
