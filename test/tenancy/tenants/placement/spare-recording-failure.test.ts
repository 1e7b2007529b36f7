import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import knexFactory, { type Knex } from 'knex';
import pino from 'pino';
import { Clusters } from '../../../../src/platform/clusters/clusters';
import { listSpares } from '../../../../src/platform/clusters/spare-catalog';
import { createTenantPools, type TenantPools } from '../../../../src/platform/db/tenant-pools';
import { SpareSchemas } from '../../../../src/tenancy/tenants/placement/spare-schemas';
import { testEnv } from '../../../support/test-app';

/**
 * The first top-up in a process records the tenant migrations on a template schema
 * (recorded-migrations.ts). When that recording fails for a reason other than "not replayable"
 * (here the cluster refuses writes; in the chaos test PostgreSQL restarted during the worker's
 * first top-up), the top-up must fail like any other and the process live on: the recording
 * kept for concurrent callers once rejected with no handler, and Node ended the worker process
 * on that unhandled rejection, so no message was delivered after the restart.
 *
 * The cluster here is the run's database seen through read-only connections: listing spares
 * works, `create schema` fails, and nothing is written.
 */
const env = testEnv();
let admin: Knex;
let pools: TenantPools;
let spares: SpareSchemas;

beforeAll(() => {
  const url = inject('databaseUrl');
  admin = knexFactory({
    client: 'pg',
    connection: { connectionString: url, options: '-c search_path= -c default_transaction_read_only=on' },
    pool: { min: 0, max: 2 },
  });
  pools = createTenantPools(env, url);
  // the recording is kept per process by cluster URL: a URL of this test's own
  const clusters = new Clusters(env, `${url}?application_name=spare_fail_${randomBytes(6).toString('hex')}`, { admin, pools });
  spares = new SpareSchemas(clusters, env, pino({ level: 'silent' }));
});
afterAll(async () => {
  await admin?.destroy();
  await pools?.destroy();
});

it('a failed recording of the migrations rejects the top-up, leaves no unhandled rejection and is tried again next time', async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    const target = (await listSpares(admin)).length + 1;
    await expect(spares.topUp('main', target, 1)).rejects.toThrow(/read-only transaction/);
    // Node reports a rejection as unhandled once the microtasks of the turn have run
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(unhandled).toEqual([]);
    // not remembered as failed: the next top-up records again (and fails again, for the same reason)
    await expect(spares.topUp('main', target, 1)).rejects.toThrow(/read-only transaction/);
    await new Promise((r) => setImmediate(r));
    expect(unhandled).toEqual([]);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});
