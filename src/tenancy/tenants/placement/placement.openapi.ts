import type { PlatformOp } from '../platform.openapi';

/** The placement calls of the /platform operator API (README.md in this folder). */
export const PLACEMENT_OPERATIONS: PlatformOp[] = [
  {
    method: 'get',
    path: '/platform/clusters',
    summary: 'The PostgreSQL clusters with their tenants and spare schemas',
    description: 'main is DATABASE_URL (also the platform database); the others come from TENANT_DATABASE_URLS, in the order declared. `clusters`: name, tenants, spare_schemas.',
  },
  {
    method: 'post',
    path: '/platform/tenants/bulk',
    summary: 'Create many empty tenants (bulk provisioning)',
    description:
      'Each tenant is its own import (placement rule, a spare schema renamed when there is one), four at a time; a bad or taken one fails alone and is listed in ' +
      '`failed`. Spare top-ups wait until the end. Answers created, failed, from_spares, seconds and progress lines.',
    created: true,
    body: {
      tenants: {
        type: 'array',
        items: { type: 'object', required: ['slug', 'name', 'hosts'], properties: { slug: { type: 'string' }, name: { type: 'string' }, hosts: { type: 'array', items: { type: 'string' } }, cluster: { type: 'string' } } },
      },
    },
  },
  {
    method: 'post',
    path: '/platform/tenants/{slug}/move',
    summary: 'Move a tenant to another PostgreSQL cluster while it keeps serving',
    description:
      'Copies the schema while the tenant serves (writes are captured), then pauses writes for a moment (they answer 503 with Retry-After: 1, or wait a ' +
      'little), copies what was written meanwhile, verifies the row count of every table, fences the old copy, switches the placement and tells every ' +
      'API and worker process at once (Redis pub/sub); reads work throughout. The old copy is dropped drop_after_seconds later (default 15). A move that ' +
      'fails before the switch leaves the tenant where it was, serving. The answer holds the tenant, `move` (rows, write_pause_ms, seconds) and progress ' +
      'lines. Unknown cluster 420; already there, or a move of it running, 409.',
    params: [['slug', 'path', 'the tenant\'s slug']],
    body: { to: { type: 'string', description: 'the cluster to move to' }, drop_after_seconds: { type: 'number', description: 'keep the fenced old copy this long (0-300, default 15)' } },
  },
];
