import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../support/test-app';
import { TenantResolver } from '../../src/platform/tenant-scope/tenant-resolver';
import { openTenantScope } from '../../src/platform/tenant-scope/request-scope';
import { TENANT_DB, TENANT_POOLS } from '../../src/platform/tokens';
import { TenantPools } from '../../src/platform/db/tenant-pools';
import { BORROW_QUIET_MS } from '../../src/platform/db/tenant-share';
import { ApiError } from '../../src/platform/errors/api-error';
import { errorMiddleware } from '../../src/platform/http/error-middleware';
import type { Tenant } from '../../src/platform/tenant-scope/tenant';

let t: TestApp;
let tenants: Tenant[];

beforeAll(async () => {
  t = await createTestApp({ DATABASE_POOL_MAX: '4', DATABASE_POOL_GROUPS: '2', DATABASE_TENANT_WAIT_MS: '2000', DATABASE_STATEMENT_TIMEOUT_MS: '3500' });
  const imported: DemoTenant[] = await Promise.all([importDemoTenant(t, 'acme'), importDemoTenant(t, 'acme'), importDemoTenant(t, 'globex')]);
  const resolver = t.container.resolve(TenantResolver);
  tenants = (await Promise.all(imported.map((d) => resolver.byTenantId(d.tenantId)))) as Tenant[];
});
afterAll(async () => t?.close());

/** The Postgres backend a tenant-scoped query ran on. */
async function backendOf(tenant: Tenant): Promise<number> {
  const db = openTenantScope(t.container, tenant).resolve(TENANT_DB);
  const { rows } = await db.raw('select pg_backend_pid() as pid, count(*) from ?? ', [db.ref('persons')]);
  return rows[0].pid;
}

describe('tenant-affine connection groups', () => {
  it('splits DATABASE_POOL_MAX over DATABASE_POOL_GROUPS, and a tenant always uses the group of its id', async () => {
    const pools = t.container.resolve(TENANT_POOLS);
    expect(pools.groups).toHaveLength(2);
    for (const g of pools.groups) expect((g.client as { config: { pool: { max: number } } }).config.pool.max).toBe(2);
    for (const tenant of tenants) {
      expect(openTenantScope(t.container, tenant).resolve(TENANT_DB).builder).toBe(pools.forTenant(tenant.id));
      // the tenant's own knex (its share) on its group's pool
      expect(pools.forTenant(tenant.id).client.pool).toBe(pools.groups[tenant.id % 2].client.pool);
    }
  });

  it('many concurrent queries of one tenant never run on a connection of the other group', async () => {
    const byGroup = new Map<number, Set<number>>();
    await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        const tenant = tenants[i % tenants.length];
        const pid = await backendOf(tenant);
        const group = tenant.id % 2;
        if (!byGroup.has(group)) byGroup.set(group, new Set());
        byGroup.get(group)!.add(pid);
      }),
    );
    const groups = [...byGroup.values()];
    for (const pids of groups) expect(pids.size).toBeLessThanOrEqual(2);
    if (groups.length === 2) expect([...groups[0]].filter((pid) => groups[1].has(pid))).toEqual([]);
  });
});

describe("a tenant's own knex", () => {
  it('shares its group pool without adding listeners to the group client, and runs transactions on it', async () => {
    const pools = t.container.resolve(TENANT_POOLS);
    const group = pools.groups[0].client;
    const before = ['start', 'query', 'query-error', 'query-response'].map((e) => group.listenerCount(e));
    // ids no tenant has: the own knex of each is made on first use
    const ids = Array.from({ length: 20 }, (_, i) => 1_000_000_000 + 2 * i);
    for (const id of ids) expect(pools.forTenant(id).client.pool).toBe(group.pool);
    expect(['start', 'query', 'query-error', 'query-response'].map((e) => group.listenerCount(e))).toEqual(before);
    const pid = await pools.forTenant(ids[0]).transaction(async (trx) => (await trx.raw('select pg_backend_pid() as pid')).rows[0].pid);
    expect(pid).toEqual(expect.any(Number));
  });
});

describe('fair use of a group (work-conserving share)', () => {
  /** Two distinct tenants of one group (three tenants over two groups: two of them share one). */
  function sameGroup(): [Tenant, Tenant] {
    for (const a of tenants) for (const b of tenants) if (a !== b && a.id % 2 === b.id % 2) return [a, b];
    throw new Error('no two tenants share a group');
  }
  const dbOf = (tenant: Tenant) => openTenantScope(t.container, tenant).resolve(TENANT_DB);
  /** Sleeps, then tells when it started and ended and on which backend (knex runs a query only once it is awaited). */
  const timed = (tenant: Tenant, seconds: number) =>
    dbOf(tenant)
      .raw('select pg_backend_pid() as pid, statement_timestamp() as started, (select clock_timestamp() from pg_sleep(?)) as ended', [seconds])
      .then((r: any) => r.rows[0] as { pid: number; started: Date; ended: Date });

  /** Borrowing waits until the other tenants of the group have left its connections alone for a while. */
  const quiet = () => new Promise((r) => setTimeout(r, BORROW_QUIET_MS + 100));

  it('a lone busy tenant borrows the idle connection of its group past its share', async () => {
    const pools = t.container.resolve(TENANT_POOLS);
    const borrows = pools.shareCounts.borrows;
    const [a] = sameGroup();
    await quiet();
    const [first, second] = await Promise.all([timed(a, 0.4), timed(a, 0.4)]);
    // both connections of the group at once: the second ran while the first slept
    expect(first.pid).not.toBe(second.pid);
    expect(second.started.getTime()).toBeLessThan(first.ended.getTime());
    expect(first.started.getTime()).toBeLessThan(second.ended.getTime());
    expect(pools.shareCounts.borrows).toBeGreaterThan(borrows);
  });

  it("with DATABASE_TENANT_SHARE_BORROW=0 the share is a hard cap: a lone tenant's second query waits for its first", async () => {
    const pools = t.container.resolve(TENANT_POOLS);
    const [a] = sameGroup();
    const strict = new TenantPools(pools.groups, { limit: 1, waitMs: 5000, borrow: false }).forTenant(a.id);
    const run = () =>
      strict
        .raw('select statement_timestamp() as started, (select clock_timestamp() from pg_sleep(0.3)) as ended')
        .then((r: any) => r.rows[0] as { started: Date; ended: Date });
    const [first, second] = await Promise.all([run(), run()]);
    const [early, late] = first.started <= second.started ? [first, second] : [second, first];
    expect(late.started.getTime()).toBeGreaterThanOrEqual(early.ended.getTime());
  });

  it('no borrowing while another tenant of the group was active within the quiet time', async () => {
    const [a, b] = sameGroup();
    await quiet();
    await timed(b, 0);
    const [first, second] = await Promise.all([timed(a, 0.3), timed(a, 0.3)]);
    const [early, late] = first.started <= second.started ? [first, second] : [second, first];
    expect(late.started.getTime()).toBeGreaterThanOrEqual(early.ended.getTime());
  });

  it('a borrower yields: the next connection that comes free goes to the other tenant, not to the borrower', async () => {
    const [a, b] = sameGroup();
    await quiet();
    const short = timed(a, 0.5);
    const long = timed(a, 1.5); // borrowed: b is not there yet
    await new Promise((r) => setTimeout(r, 150));
    const other = timed(b, 0); // its share: queued for the next free connection
    await new Promise((r) => setTimeout(r, 50));
    const more = timed(a, 0); // past a's share while b waits: queued behind b
    const [s, l, o, m] = await Promise.all([short, long, other, more]);
    expect(o.started.getTime()).toBeGreaterThanOrEqual(s.ended.getTime());
    expect(o.started.getTime()).toBeLessThan(l.ended.getTime());
    // a's next query did not overtake b: it ran once b was done (on the connection b gave back)
    expect(m.started.getTime()).toBeGreaterThanOrEqual(o.ended.getTime());
  });

  it('while another tenant of the group holds its share, a tenant past its share waits, then 503 with Retry-After', async () => {
    const [a, b] = sameGroup();
    const busyA = timed(a, 2.8);
    const busyB = timed(b, 2.8);
    await new Promise((r) => setTimeout(r, 150));
    const refused = await dbOf(a)
      .raw('select 1')
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).status).toBe(503);
    expect((refused as ApiError).headers['Retry-After']).toBeDefined();
    await Promise.all([busyA, busyB]);
    await dbOf(a).raw('select 1');
    expect(t.container.resolve(TENANT_POOLS).shareCounts.refusals).toBeGreaterThan(0);
  });

  it('a statement past DATABASE_STATEMENT_TIMEOUT_MS is cancelled and answers 503 in the envelope', async () => {
    const err: any = await openTenantScope(t.container, tenants[0])
      .resolve(TENANT_DB)
      .raw('select pg_sleep(5)')
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err?.code).toBe('57014');
    const sent: { status?: number; body?: any; headers?: Record<string, string> } = {};
    const res: any = {
      headersSent: false,
      set: (h: Record<string, string> | string, v?: string) => ((sent.headers = { ...sent.headers, ...(typeof h === 'string' ? { [h]: v! } : h) }), res),
      status: (s: number) => ((sent.status = s), res),
      json: (b: unknown) => (sent.body = b),
    };
    errorMiddleware({
      error() {},
      warn() {},
      child() {
        return this;
      },
    } as any)(err, { id: 'x' } as any, res, () => {});
    expect(sent.status).toBe(503);
    expect(sent.headers?.['Retry-After']).toBeDefined();
    expect(sent.body).toMatchObject({ valid: false, errorcode: 503 });
  });
});
