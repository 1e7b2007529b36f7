import { z } from 'zod';
import type { RouteContext } from '../../platform/http/define-route';
import type { OperatorOrigin } from '../../tenancy';

/**
 * What the operator API (/platform, src/tenancy/tenants/README.md "Operator HTTP API") shares between its routes:
 * the answers' shapes and the parameters several calls take.
 */

export const TenantView = z
  .object({
    slug: z.string(),
    name: z.string(),
    status: z.enum(['active', 'suspended']),
    hosts: z.array(z.string()),
    schema: z.string().describe('the PostgreSQL schema of its data'),
    cluster: z.string().describe('the PostgreSQL cluster the schema lives on (main: DATABASE_URL)'),
    schema_version: z.string().nullable().describe('the newest migration applied; null when its cluster is unknown to this process'),
    schema_size_bytes: z.number().int(),
    created_at: z.string().describe('ISO 8601 date-time'),
    migration_failed_at: z.string().nullable().describe('set while the last migration of the tenant failed (it answers 503 meanwhile)'),
  })
  .describe('A tenant with its status, hosts, cluster, schema version and size')
  .meta({ id: 'Tenant' });

export const progress = z.array(z.string()).describe('progress lines, as the CLI prints them');

/** The tenant's slug in the path. */
export const slug = z.string().describe("the tenant's slug");

/** A cluster's name where one may be given: "" is none, anything but text a 420. */
export const cluster = z
  .string({ error: 'must be the name of a cluster' })
  .optional()
  .describe('the PostgreSQL cluster (main or a name of TENANT_DATABASE_URLS); default: the one with the fewest tenants');

/** A value its service checks itself (its 420 names the place: admin.email, tenants[3].slug), documented with the schema it checks. */
export function checkedBy(schema: z.ZodType, description: string) {
  const { $schema: _, ...json } = z.toJSONSchema(schema, { io: 'input' });
  return z.unknown().meta({ ...json, description });
}

/** Where an operator action came from, for the tenant's security event log. */
export const origin = (ctx: RouteContext): OperatorOrigin => ({ via: 'http', ip: ctx.ip || null });
