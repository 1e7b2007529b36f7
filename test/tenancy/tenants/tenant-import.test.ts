import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Knex } from 'knex';
import { createTestApp, type TestApp } from '../../support/test-app';
import { readDemoDocument } from '../../../seeds/demo-tenants';
import { TenantImporter } from '../../../src/tenancy/tenants/tenant-importer';
import { TenantStore } from '../../../src/platform/tenant-scope/tenant-store';
import { schemaNameForSlug } from '../../../src/platform/tenant-scope/tenant-db';
import { KNEX } from '../../../src/platform/tokens';

let t: TestApp;
let knex: Knex;
beforeAll(async () => {
  t = await createTestApp();
  knex = t.container.resolve(KNEX);
});
afterAll(async () => t?.close());

async function importBroken(mutate: (doc: any) => void) {
  const doc = readDemoDocument('acme');
  mutate(doc);
  const slug = `broken-${randomBytes(3).toString('hex')}`;
  const error = await t.container
    .resolve(TenantImporter)
    .import(doc, { slug, hosts: [`${slug}.test`], onProgress: () => {} })
    .then(
      () => null,
      (err: Error) => err,
    );
  return { slug, error };
}

async function nothingLeftOf(slug: string) {
  expect(await t.container.resolve(TenantStore).findIdBySlug(slug)).toBeNull();
  expect(await t.container.resolve(TenantStore).findIdByHost(`${slug}.test`)).toBeNull();
  const schema = await knex.raw('select 1 from pg_namespace where nspname = ?', [schemaNameForSlug(slug)]);
  expect(schema.rowCount).toBe(0);
}

describe('tenant import', () => {
  it('names the offending ref of a late section and leaves nothing half-created', async () => {
    const { slug, error } = await importBroken((doc) => {
      doc.person_competences.push({ person: 'ola', competence: 'no-such-course', date: '2025-01-01' });
    });
    expect(error?.message).toBe('person_competences[4]: unknown competence ref "no-such-course"');
    await nothingLeftOf(slug);
  });

  it('names a person whose organisation ref is unknown', async () => {
    const { slug, error } = await importBroken((doc) => {
      doc.persons[2].organisation = 'acme-nowhere';
    });
    expect(error?.message).toBe('persons[2] (ola): unknown organisation ref "acme-nowhere"');
    await nothingLeftOf(slug);
  });

  it('refuses a bad config value naming the item', async () => {
    const { slug, error } = await importBroken((doc) => {
      doc.config['cors.origins'] = ['https://ok.example', 'not an origin'];
    });
    expect(error?.message).toMatch(/^config: config item cors\.origins: 1: /);
    await nothingLeftOf(slug);
  });

  it('creates of the same slug at once: one tenant, every other one "already exists" (never a database error)', async () => {
    const slug = `twice-${randomBytes(3).toString('hex')}`;
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        t.container
          .resolve(TenantImporter)
          .import({ format: 'tenant-import/1', tenant: { slug, name: 'Twice', hosts: [`${slug}-${i}.test`] } } as any, { onProgress: () => {} })
          .then(
            () => 'created',
            (err: Error) => err.message,
          ),
      ),
    );
    expect(results.filter((r) => r === 'created')).toHaveLength(1);
    for (const r of results.filter((x) => x !== 'created')) expect(r).toBe(`tenant "${slug}" already exists`);
  });

  it('refuses a document of another format', async () => {
    const { error } = await importBroken((doc) => {
      doc.format = 'tenant-import/2';
    });
    expect(error?.message).toMatch(/invalid tenant-import\/1 document at format/);
  });
});

describe('statistics after a large import', () => {
  it('analyzes the tables that received 1,000 rows or more, and leaves small ones to autovacuum', async () => {
    const doc = readDemoDocument('acme');
    for (let i = 0; i < 1000; i++) doc.persons.push({ user_name: `bulk${i}`, firstname: 'Bulk', lastname: `Person ${i}`, organisation: 'acme' });
    const slug = `large-${randomBytes(3).toString('hex')}`;
    const lines: string[] = [];
    await t.container.resolve(TenantImporter).import(doc, { slug, hosts: [`${slug}.test`], onProgress: (m) => lines.push(m) });
    const schema = schemaNameForSlug(slug);
    // ANALYZE sets reltuples; a table never analyzed (nor vacuumed) has -1
    const tuples = async (table: string) =>
      Number(
        (
          await knex.raw('select c.reltuples from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = ? and c.relname = ?', [
            schema,
            table,
          ])
        ).rows[0].reltuples,
      );
    expect(await tuples('persons')).toBe(1007);
    expect(await tuples('organisations')).toBe(-1);
    expect(lines.some((l) => l.includes('statistics gathered for persons'))).toBe(true);
  });
});
