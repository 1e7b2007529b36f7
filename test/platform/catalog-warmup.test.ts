import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import request from 'supertest';
import type { Knex } from 'knex';
import { createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../support/test-app';
import { startServer } from '../../src/server';
import { PrincipalCache } from '../../src/platform/auth/principal-cache';
import { KNEX, TENANT_POOLS } from '../../src/platform/tokens';
import { TENANT_WARM_TABLES, warmStatements } from '../../src/platform/db/catalog-warmup';
import { ACME_SWT, inAnHour, swtToken } from '../identity/sso/swt-test-token';

/**
 * The start-up catalog warm-up (src/platform/db/catalog-warmup.ts, src/server.ts): after a start, a
 * tenant's first GET /api/person runs its statements only on connections that already met every
 * table they name, opens no connection and reads no tenant. Each connection's tables are tracked
 * from the statements sent on it (pg.Client.prototype.query), and PostgreSQL's own catalog cache right
 * after the start through its memory contexts (an index's cache entry is an "index info" context
 * named after the index).
 */
const seen = new WeakMap<object, Set<string>>();
let recording = false;
/** Statements of a request that named a table its connection had not met: `schema.table`. */
const cold: string[] = [];
let statements = 0;
// eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be called with the client as this (.apply below)
const original = pg.Client.prototype.query as (...a: unknown[]) => unknown;
(pg.Client.prototype as unknown as { query: unknown }).query = function (this: object, ...args: unknown[]) {
  const first = args[0] as string | { text?: string } | undefined;
  const text = typeof first === 'string' ? first : (first?.text ?? '');
  let tables = seen.get(this);
  if (!tables) seen.set(this, (tables = new Set()));
  const named = [...text.matchAll(/"(tenant_[a-z0-9_]+)"\."([a-z_]+)"/g)].map((m) => `${m[1]}.${m[2]}`);
  if (recording && named.length > 0) {
    statements++;
    for (const x of named) if (!tables.has(x)) cold.push(x);
  }
  for (const x of named) tables.add(x);
  return original.apply(this, args);
};

let importer: TestApp;
let tenants: DemoTenant[];
beforeAll(async () => {
  importer = await createTestApp();
  tenants = await Promise.all([importDemoTenant(importer, 'acme'), importDemoTenant(importer, 'acme')]);
}, 60_000);
afterAll(async () => {
  await importer?.close();
});

/**
 * Starts a server in an app of its own (fresh pools: no connection has met a tenant), then sends each
 * tenant's first GET /api/person and, with the tenant's cached data dropped, two rounds of 4 at once (so
 * both connections of its group run its statements). Counts what those requests met.
 */
async function firstRequests(env: Record<string, string>) {
  const t = await createTestApp({ DATABASE_POOL_MAX: '4', DATABASE_POOL_GROUPS: '2', ...env });
  const server = await startServer(t.container, 0);
  const lookups: string[] = [];
  t.container.resolve<Knex>(KNEX).on('query', (q: { sql: string }) => {
    if (/tenant_hosts|"tenants"/.test(q.sql)) lookups.push(q.sql);
  });
  // PostgreSQL's side, right after the start: on each connection of each group, how many schemas' persons
  // primary key has its cache entry
  const pools = t.container.resolve(TENANT_POOLS);
  const personsKeyEntries = await Promise.all(
    pools.groups.map(async (group) => {
      const client = group.client;
      const held = await Promise.all([0, 1].map(() => client.acquireConnection()));
      try {
        return await Promise.all(
          held.map(
            async (c) =>
              (await c.query("select count(*)::int as n from pg_backend_memory_contexts where name = 'index info' and ident = 'persons_pkey'")).rows[0]
                .n as number,
          ),
        );
      } finally {
        await Promise.all(held.map((c) => client.releaseConnection(c)));
      }
    }),
  );
  let created = 0;
  for (const group of t.container.resolve(TENANT_POOLS).groups) group.client.pool.on('createSuccess', () => created++);
  cold.length = 0;
  statements = 0;
  recording = true;
  try {
    const token = `SWT ${swtToken(ACME_SWT.secret, { Issuer: ACME_SWT.issuer, ExpiresOn: inAnHour(), username: 'admin' })}`;
    const get = (host: string) => request(server.server).get('/api/person').set('Host', host).set('Authorization', token);
    for (const tenant of tenants) {
      const res = await get(tenant.host);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      for (let round = 0; round < 2; round++) {
        t.container.resolve(PrincipalCache).forgetSchema(tenant.schema);
        for (const r of await Promise.all([1, 2, 3, 4].map(() => get(tenant.host)))) expect(r.status).toBe(200);
      }
    }
  } finally {
    recording = false;
  }
  return { t, server, cold: [...cold], statements, created, lookups, personsKeyEntries };
}

describe('the catalog warm-up before the API listens', () => {
  it('builds every table a first GET /api/person names on every connection: no statement meets a new table, no connection is opened, no tenant read', async () => {
    // other test files' tenants share the database: no per-connection cap, so the warm-up (in tenant id order) reaches ours
    const {
      t,
      server,
      cold: met,
      statements: n,
      created,
      lookups,
      personsKeyEntries,
    } = await firstRequests({ STARTUP_WARMUP_MS: '60000', DATABASE_CONNECTION_MAX_TENANTS: '0' });
    try {
      expect(n).toBeGreaterThanOrEqual(tenants.length * 3);
      expect(met).toEqual([]);
      expect(created).toBe(0);
      expect(lookups).toEqual([]);
      // every connection of each group holds the persons primary key of at least our tenants of that group
      personsKeyEntries.forEach((perConnection, group) => {
        const ours = tenants.filter((x) => x.tenantId % personsKeyEntries.length === group).length;
        for (const n of perConnection) expect(n).toBeGreaterThanOrEqual(ours);
      });
    } finally {
      await server.close();
      await t.close();
    }
  }, 60_000);

  it('without it (STARTUP_WARMUP_MS=0) the same requests meet tables their connection had not: what the warm-up takes out', async () => {
    const { t, server, cold: met, personsKeyEntries } = await firstRequests({ STARTUP_WARMUP_MS: '0' });
    try {
      expect(met.length).toBeGreaterThan(0);
      expect(personsKeyEntries.flat()).toEqual([0, 0, 0, 0]);
    } finally {
      await server.close();
      await t.close();
    }
  }, 60_000);

  it('warms the tables the modules registered, each with one planned (not executed) read, in one round trip per tenant', () => {
    const tables = importer.container.resolveAll(TENANT_WARM_TABLES).flat();
    expect(tables).toEqual(expect.arrayContaining(['persons', 'organisations', 'organisation_managers', 'person_roles', 'roles']));
    expect(warmStatements('tenant_x', ['persons', 'roles'])).toBe('explain select * from "tenant_x"."persons";\nexplain select * from "tenant_x"."roles"');
  });
});
