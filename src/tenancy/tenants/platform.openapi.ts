/**
 * The /platform operator API in the OpenAPI document. Its handlers are plain express (they run
 * outside any tenant), so this table, kept next to platform.routes.ts, describes them.
 */
import { PLACEMENT_OPERATIONS } from './placement/placement.openapi';
import { operationId } from '../../platform/openapi/openapi-document';

export type Param = [name: string, where: 'path' | 'query', description: string];
export interface PlatformOp {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  summary: string;
  /** The decisions behind the call (src/tenancy/tenants/README.md). */
  description?: string;
  params?: Param[];
  body?: Record<string, unknown>;
  created?: boolean;
}

const slug: Param = ['slug', 'path', 'the tenant\'s slug'];
const FIRST_ADMIN = {
  type: 'object',
  required: ['user_name', 'email'],
  properties: { user_name: { type: 'string' }, email: { type: 'string' }, firstname: { type: 'string' }, lastname: { type: 'string' } },
  description: 'the first superuser, created in a root organisation named after the tenant and mailed a password (must be changed at first login)',
};

export const PLATFORM_OPERATIONS: PlatformOp[] = [
  { method: 'get', path: '/platform/tenants', summary: 'List tenants with status, hosts, cluster, schema version and size' },
  {
    method: 'post',
    path: '/platform/tenants',
    summary: 'Create an empty tenant; with admin (and mail_from) also its first superuser',
    description:
      'Platform rows, schema and migrations in one transaction. With admin it also creates a root organisation named after the tenant and the first ' +
      'superuser in it, and mail_from (required then) sets mail.from; the superuser is mailed a password through the outbox and must change it at first login (418). ' +
      'A taken slug or host is a 409; a bad slug or host a 420. The schema goes to `cluster` when given (an unknown name is a 420), else to the cluster with ' +
      'the fewest tenants (ties: main, then TENANT_DATABASE_URLS in order); a pre-migrated spare schema is renamed when the cluster has one.',
    created: true,
    body: { slug: { type: 'string' }, name: { type: 'string' }, hosts: { type: 'array', items: { type: 'string' } }, cluster: { type: 'string', description: 'the PostgreSQL cluster (main or a name of TENANT_DATABASE_URLS); default: the one with the fewest tenants' }, mail_from: { type: 'string', description: 'config item mail.from; required with admin' }, admin: FIRST_ADMIN },
  },
  { method: 'post', path: '/platform/tenants/import', summary: 'Create a tenant from a tenant-archive/1 (gzip body) or tenant-import/1 document',
    description:
      'The two formats are told apart by Content-Type (application/gzip: an archive; JSON: a tenant-import/1 document). One transaction: an archive ' +
      'recreates the tenant exactly (same ids, sequences, files, config history), its schema migrated up to the archive\'s version and then on to the ' +
      'server\'s; an archive of a newer schema is refused. A bad, truncated or incomplete archive is a 420 naming what is wrong and leaves nothing behind. ' +
      'The answer lists progress lines. slug and host (repeatable) override the document\'s.',
    created: true, params: [['slug', 'query', 'slug instead of the document\'s'], ['hosts', 'query', 'hosts instead of the document\'s'], ['cluster', 'query', 'the PostgreSQL cluster; default: the one with the fewest tenants']] },
  { method: 'get', path: '/platform/tenants/{slug}', summary: 'One tenant', params: [slug] },
  { method: 'delete', path: '/platform/tenants/{slug}', summary: 'Delete a tenant and all its data (confirm=<slug>)',
    description:
      'Without confirm repeating the slug: 409. Drops the schema and the platform rows, then runs every purger (Redis keys t:<id>:*, queued jobs, ' +
      'the file store namespace); the answer lists what they removed. A job a worker holds at that moment ends failed on its own.', params: [slug, ['confirm', 'query', 'the slug again']] },
  { method: 'get', path: '/platform/tenants/{slug}/export', summary: 'Export a tenant (tenant-archive/1 gzip, or format=tenant-import/1 JSON)',
    description:
      'tenant-archive/1 (default), streamed: every table of the tenant schema from one snapshot, config items and their history, and the file store\'s bytes. ' +
      'Secret config items and password hashes are included unless secrets=0 / password_hashes=0. format=tenant-import/1 answers the older hand-mapped ' +
      'document without an envelope (current registrations only; no files, messages, survey answers, history or audit log) so it can be posted back. Audited.', params: [slug, ['format', 'query', 'tenant-archive/1 or tenant-import/1'], ['secrets', 'query', '0 leaves secrets out'], ['password_hashes', 'query', '0 blanks password hashes']] },
  { method: 'post', path: '/platform/tenants/{slug}/hosts', summary: 'Add a host name', params: [slug], body: { host: { type: 'string' } } },
  { method: 'delete', path: '/platform/tenants/{slug}/hosts/{host}', summary: 'Remove a host name', description: 'The last host is refused (409): a tenant without a host cannot be reached; suspend it instead.', params: [slug, ['host', 'path', 'the host name']] },
  { method: 'post', path: '/platform/tenants/{slug}/suspend', summary: 'Suspend a tenant (its API answers 423)', description: 'Every request to the tenant (API and admin page) answers 423; the data stays. All processes see the change within a second.', params: [slug] },
  { method: 'post', path: '/platform/tenants/{slug}/resume', summary: 'Resume a suspended tenant', params: [slug] },
  { method: 'get', path: '/platform/tenants/{slug}/configitems', summary: 'Every config item of the tenant; secrets as is_set only', params: [slug] },
  {
    method: 'put',
    path: '/platform/tenants/{slug}/configitems/{config_item_id}',
    summary: 'Set a config item (validated like the tenant admin\'s PUT; audited as operator; applied at once)',
    description: 'Write-only (secret) items too; the answer shows them as is_set only. A bad value is a 420 naming the item; recorded as config.changed with actor operator.',
    params: [slug, ['config_item_id', 'path', 'e.g. api.rate_limit.per_minute']],
    body: { value: { description: 'the new value; null clears a nullable item' } },
  },
  { method: 'post', path: '/platform/tenants/{slug}/persons/{user_name}/reset_password', summary: 'Mail a person a new password (must be changed at login); audited',
    description: 'Through the outbox, as send_login does; recorded in the tenant\'s security event log as password.reset with actor operator.', params: [slug, ['user_name', 'path', 'the person']] },
  {
    method: 'post',
    path: '/platform/migrate',
    summary: 'Migrate every tenant schema',
    description:
      'The platform schema, then every tenant, each in its own transaction; progress lines in the answer; a 500 envelope when a tenant failed. A tenant whose ' +
      'migration failed answers 503 (Retry-After: 60) until a later run succeeds; the others are unaffected.',
  },
  ...PLACEMENT_OPERATIONS,
];

const envelope = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } } });

export function platformPaths(): Record<string, Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of PLATFORM_OPERATIONS) {
    paths[op.path] ??= {};
    paths[op.path][op.method] = {
      operationId: `platform${operationId(op.method, op.path)}`,
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      tags: ['platform'],
      security: [{ platformToken: [] }],
      parameters: (op.params ?? []).map(([name, where, description]) => ({ name, in: where, required: where === 'path', description, schema: { type: 'string' } })),
      ...(op.body ? { requestBody: { content: { 'application/json': { schema: { type: 'object', properties: op.body } } } } } : {}),
      responses: {
        [op.created ? '201' : '200']: { description: 'the envelope', content: { 'application/json': { schema: { type: 'object', required: ['valid', 'message'], properties: { valid: { const: true }, message: { type: 'string' } } } } } },
        '400': envelope('errorcode 419 or 420: a missing or malformed parameter'),
        '401': envelope('errorcode 401: no or a wrong operator token'),
        '404': envelope('errorcode 404: unknown tenant, person or config item; or PLATFORM_ADMIN_TOKEN not set'),
        '409': envelope('errorcode 409: a conflict (slug or host taken, last host, confirm missing)'),
      },
    };
  }
  return paths;
}
