import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Knex } from 'knex';
import { createKnex } from '../../src/platform/db/create-knex';
import { boundNamedStatements } from '../../src/platform/db/named-statements';
import { TenantDb } from '../../src/platform/tenant-scope/tenant-db';

// One connection, so what it has prepared can be read from pg_prepared_statements.
let k: Knex;
const suffix = randomBytes(4).toString('hex');
const schemaA = `named_a_${suffix}`;
const schemaB = `named_b_${suffix}`;

beforeAll(async () => {
  k = createKnex({ DATABASE_POOL_MAX: 1, DATABASE_CONNECTION_LIFETIME_SECONDS: 600 }, inject('databaseUrl'));
  for (const [schema, v] of [
    [schemaA, 1],
    [schemaB, 2],
  ] as const) {
    await k.raw(`create schema ${schema}; create table ${schema}.x (v int); insert into ${schema}.x values (${v})`);
  }
});

afterAll(async () => {
  await k?.raw(`drop schema if exists ${schemaA} cascade; drop schema if exists ${schemaB} cascade`);
  await k?.destroy();
});

const preparedNames = async (): Promise<string[]> =>
  (await k.raw('select name from pg_prepared_statements order by name')).rows.map((r: { name: string }) => r.name);

describe('named statements (TenantDb.prepared)', () => {
  it('are prepared once per connection and tenant: the same key never reads another schema', async () => {
    const a = new TenantDb(k, schemaA);
    const b = new TenantDb(k, schemaB);
    const read = (db: TenantDb, min: number) => db.prepared('test.read-x', 'select v from ?? where v >= ?', [db.ref('x'), min]);
    for (let i = 0; i < 3; i++) {
      expect((await read(a, 0)).rows).toEqual([{ v: 1 }]);
      expect((await read(b, 0)).rows).toEqual([{ v: 2 }]);
    }
    const names = (await preparedNames()).filter((n) => n.startsWith('test.read-x_'));
    // one per schema, however often it ran
    expect(names).toHaveLength(2);
  });

  it('a connection prepares at most its bound; past it statements run unnamed and still answer', async () => {
    const bounded = boundNamedStatements(createKnex({ DATABASE_POOL_MAX: 1, DATABASE_CONNECTION_LIFETIME_SECONDS: 600 }, inject('databaseUrl')), 2);
    try {
      const db = new TenantDb(bounded, schemaA);
      for (let i = 0; i < 4; i++) {
        const { rows } = await db.prepared(`test.bound-${i}`, `select v + ${i} as w from ??`, [db.ref('x')]);
        expect(rows).toEqual([{ w: 1 + i }]);
      }
      const { rows } = await bounded.raw("select count(*)::int as n from pg_prepared_statements where name like 'test.bound-%'");
      expect(rows[0].n).toBe(2);
    } finally {
      await bounded.destroy();
    }
  });
});
