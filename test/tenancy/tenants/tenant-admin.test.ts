import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTestApp, importDemoTenant, type TestApp } from '../../support/test-app';
import { ACME_PASSWORDS, loginCookie } from '../../support/login';
import { readDemoDocument } from '../../../seeds/demo-tenants';
import { TenantAdminService } from '../../../src/tenancy/tenants/tenant-admin.service';
import { KNEX, REDIS } from '../../../src/platform/tokens';
import { schemaNameForSlug } from '../../../src/platform/tenant-scope/tenant-db';
import { tenantMigrations } from '../../../migrations/tenant';

const CURRENT_TENANT_VERSION = tenantMigrations[tenantMigrations.length - 1].name;

let t: TestApp;
let admin: TenantAdminService;
const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  t = await createTestApp();
  admin = t.container.resolve(TenantAdminService);
});
afterAll(async () => t?.close());

/**
 * What an export can differ in from the document it came from: password hashes instead of
 * passwords, password_changed_at (the import time when the document had none), defaults the
 * import fills in (passed 100), and external ids stored as text.
 */
function normalise(doc: any): any {
  const d = structuredClone(doc);
  for (const p of d.persons) {
    delete p.password;
    delete p.password_hash;
    delete p.password_changed_at;
  }
  const orgs = (list: any[]) =>
    list.forEach((o) => {
      if (o.extern_organisation_id !== undefined) o.extern_organisation_id = String(o.extern_organisation_id);
      orgs(o.children ?? []);
    });
  orgs(d.organisations);
  for (const pc of d.person_competences) pc.passed ??= 100;
  return d;
}

describe('export of an imported tenant', () => {
  it('equals the imported acme document under its new slug and host, except for passwords', async () => {
    const input = readDemoDocument('acme');
    const slug = unique('copy');
    const host = `${slug}.test`;
    const created = await admin.import(input, { slug, hosts: [host] });
    expect(created).toMatchObject({ slug, name: 'Acme Industries', status: 'active', hosts: [host], schema_version: CURRENT_TENANT_VERSION });

    const exported = await admin.export(slug);
    expect(exported.tenant).toEqual({ slug, name: 'Acme Industries', hosts: [host] });
    expect(normalise(exported)).toEqual(normalise({ ...input, tenant: { slug, name: 'Acme Industries', hosts: [host] } }));
    const expired = exported.persons.find((p) => p.user_name === 'expired')!;
    expect(expired.password_changed_at).toBe('2020-01-01T00:00:00Z');
    expect(exported.persons.every((p) => p.password_hash?.startsWith('$'))).toBe(true);
  });

  it('keeps superadmin and role admins through export and import (the format only grows)', async () => {
    const input = readDemoDocument('acme');
    input.persons.find((p: any) => p.user_name === 'nils').superadmin = true;
    input.roles.find((r: any) => r.ref === 'welder').admins = ['per', 'kari'];
    const slug = unique('admins');
    await admin.import(input, { slug, hosts: [`${slug}.test`] });
    const exported = await admin.export(slug);
    expect(normalise(exported)).toEqual(normalise({ ...input, tenant: exported.tenant }));
    expect(exported.roles.find((r) => r.ref === 'welder')!.admins).toEqual(['per', 'kari']);
    expect(exported.persons.find((p) => p.user_name === 'nils')!.superadmin).toBe(true);
    const unknown = unique('bad');
    input.roles[0].admins = ['nobody'];
    await expect(admin.import(input, { slug: unknown, hosts: [`${unknown}.test`] })).rejects.toThrow(/admins.*nobody/);
  });

  it('imports again into an identical tenant where the old passwords still work', async () => {
    const first = unique('first');
    await admin.import(readDemoDocument('acme'), { slug: first, hosts: [`${first}.test`] });
    const doc = await admin.export(first);
    const second = unique('second');
    await admin.import(doc, { slug: second, hosts: [`${second}.test`] });
    const again = await admin.export(second);
    expect({ ...again, tenant: null }).toEqual({ ...doc, tenant: null });
    await loginCookie(t, `${second}.test`, 'admin', ACME_PASSWORDS.admin);
  });

  it('leaves secret config items out with secrets: false', async () => {
    const acme = await importDemoTenant(t, 'acme');
    expect((await admin.export(acme.slug)).config['api.oauth.secret']).toBe('acme-swt-shared-secret-0123456789abcdef');
    const without = await admin.export(acme.slug, { secrets: false });
    expect(without.config).not.toHaveProperty('api.oauth.secret');
    expect(without.config['mail.from']).toBe('Acme Training <training@acme.example>');
  });
});

describe('create, hosts and list', () => {
  it('creates an empty tenant with its schema migrated and lists it with version and size', async () => {
    const slug = unique('fresh');
    await admin.create({ slug, name: 'Fresh Ltd', hosts: [`${slug}.test`] });
    const listed = (await admin.list()).find((x) => x.slug === slug)!;
    expect(listed).toMatchObject({
      name: 'Fresh Ltd',
      status: 'active',
      hosts: [`${slug}.test`],
      schema: schemaNameForSlug(slug),
      schema_version: CURRENT_TENANT_VERSION,
    });
    expect(listed.schema_size_bytes).toBeGreaterThan(0);
    const login = await client(t, `${slug}.test`).post('/api/login').send({ user_name: 'admin', password: 'x', login: 1 });
    expect(login.status).toBe(401);
  });

  it('refuses a taken slug or host with 409 and a bad slug with 420', async () => {
    const acme = await importDemoTenant(t, 'acme');
    await expect(admin.create({ slug: acme.slug, name: 'X', hosts: ['x-unused.test'] })).rejects.toMatchObject({ errorcode: 409 });
    await expect(admin.create({ slug: unique('other'), name: 'X', hosts: [acme.host] })).rejects.toMatchObject({ errorcode: 409 });
    await expect(admin.create({ slug: 'Bad Slug', name: 'X', hosts: ['y-unused.test'] })).rejects.toMatchObject({ errorcode: 420 });
  });

  it('adds a host that answers at once, and removes it again but never the last one', async () => {
    const acme = await importDemoTenant(t, 'acme');
    const extra = `${unique('extra')}.test`;
    expect((await client(t, extra).get('/api/configitems/cors.origins')).status).toBe(404);
    await admin.addHost(acme.slug, extra);
    expect((await client(t, extra).get('/api/configitems/cors.origins')).status).toBe(401);
    await admin.removeHost(acme.slug, extra);
    expect((await client(t, extra).get('/api/configitems/cors.origins')).status).toBe(404);
    await expect(admin.removeHost(acme.slug, acme.host)).rejects.toMatchObject({ errorcode: 409 });
    await expect(admin.removeHost(acme.slug, 'nope.test')).rejects.toMatchObject({ errorcode: 404 });
  });
});

describe('suspend and resume', () => {
  it('answers every request of a suspended tenant with the 423 envelope, and resume restores it', async () => {
    const acme = await importDemoTenant(t, 'acme');
    const cookie = await loginCookie(t, acme.host, 'admin', ACME_PASSWORDS.admin);
    await admin.suspend(acme.slug);
    for (const res of [
      await client(t, acme.host, cookie).get('/api/configitems/cors.origins'),
      await client(t, acme.host).post('/api/login').send({ user_name: 'admin', password: ACME_PASSWORDS.admin, login: 1 }),
      await client(t, acme.host).get('/api/anything'),
      await client(t, acme.host).get('/admin'),
    ]) {
      expect(res.status).toBe(423);
      expect(res.body).toEqual({ valid: false, errorcode: 423, message: `tenant ${acme.slug} is suspended; contact the service operator` });
    }
    await admin.resume(acme.slug);
    const res = await client(t, acme.host, cookie).get('/api/configitems/cors.origins');
    expect(res.status).toBe(200);
  });
});

describe('delete', () => {
  it('drops the schema, the hosts, the config and every Redis key of the tenant', async () => {
    const acme = await importDemoTenant(t, 'acme');
    const other = await importDemoTenant(t, 'acme');
    await loginCookie(t, acme.host, 'admin', ACME_PASSWORDS.admin);
    const redis = t.container.resolve(REDIS);
    const knex = t.container.resolve(KNEX);
    await redis.set(`t:${acme.tenantId}:test:marker`, '1');
    await redis.set(`t:${other.tenantId}:test:marker`, '1');
    expect((await redis.keys(`t:${acme.tenantId}:*`)).length).toBeGreaterThan(1);

    const lines: string[] = [];
    const report = await admin.delete(acme.slug, (l) => lines.push(l));
    expect(report.purged).toContainEqual(expect.stringMatching(/^redis-keys: \d+ Redis keys$/));
    expect(lines.length).toBeGreaterThan(1);
    expect(await redis.keys(`t:${acme.tenantId}:*`)).toEqual([]);
    expect(await redis.get(`t:${other.tenantId}:test:marker`)).toBe('1');
    const schema = await knex.raw('select to_regnamespace(?) as s', [acme.schema]);
    expect(schema.rows[0].s).toBeNull();
    expect(await knex.withSchema('platform').table('tenant_hosts').where({ host: acme.host })).toEqual([]);
    expect(await knex.withSchema('platform').table('config_items').where({ tenant_id: acme.tenantId })).toEqual([]);
    expect((await client(t, acme.host).get('/api/configitems/cors.origins')).status).toBe(404);
    expect((await client(t, other.host).post('/api/login').send({ user_name: 'admin', password: ACME_PASSWORDS.admin, login: 1 })).status).toBe(200);
  });

  it('says 404 for an unknown tenant', async () => {
    await expect(admin.delete('no-such-tenant')).rejects.toMatchObject({ errorcode: 404, message: 'tenant no-such-tenant not found' });
  });
});
