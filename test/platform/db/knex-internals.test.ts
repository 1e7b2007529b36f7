import fs from 'node:fs';
import path from 'node:path';
import knexFactory from 'knex';
import { describe, expect, it } from 'vitest';

/**
 * src/platform/db/tenant-share.ts and tenant-pools.ts (and the migrations' advisory lock) reach
 * into knex internals: knex/lib/knex-builder/make-knex, client.acquireConnection /
 * releaseConnection, and a client that works when inherited with Object.create. package.json pins
 * knex to the minor they were written against; this test fails loudly when an upgrade moves them.
 */
const ROOT = path.resolve(__dirname, '../../..');
const PINNED_MINOR = '3.3';

describe('the knex internals the database layer patches', () => {
  it('knex is pinned to the minor whose internals are patched', () => {
    const declared = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).dependencies.knex as string;
    expect(declared, 'package.json must pin knex with ~ to one minor').toBe(`~${PINNED_MINOR}.0`);
    const installed = JSON.parse(fs.readFileSync(require.resolve('knex/package.json'), 'utf8')).version as string;
    expect(
      installed.startsWith(`${PINNED_MINOR}.`),
      `knex ${installed} is installed; tenant-share.ts was written for ${PINNED_MINOR}.x: re-read it before moving on`,
    ).toBe(true);
  });

  it('make-knex, acquireConnection and releaseConnection are where tenant-share.ts expects them', async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const makeKnex = require('knex/lib/knex-builder/make-knex');
    expect(typeof makeKnex).toBe('function');
    const db = knexFactory({ client: 'pg', connection: {}, pool: { min: 0, max: 1 } });
    try {
      expect(typeof db.client.acquireConnection).toBe('function');
      expect(typeof db.client.releaseConnection).toBe('function');
      // the inherited client of sharedKnex builds a working query builder through make-knex
      const child = Object.create(db.client);
      const wrapped = makeKnex(child);
      expect(wrapped('persons').where({ id: 1 }).toSQL().sql).toBe('select * from "persons" where "id" = ?');
      expect(wrapped.client).toBe(child);
      // one-query-at-a-time.ts queues a transaction's calls into the dialect's _query
      expect(typeof (db.client as unknown as { _query: unknown })._query).toBe('function');
    } finally {
      await db.destroy();
    }
  });
});
