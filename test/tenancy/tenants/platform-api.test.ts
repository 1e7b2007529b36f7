import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { client, createTestApp, importDemoTenant, type TestApp } from '../../support/test-app';
import { readDemoDocument } from '../../../seeds/demo-tenants';
import { KNEX } from '../../../src/platform/tokens';
import { OPERATOR_TOKEN, operator } from './archive-support';
import { tenantMigrations } from '../../../migrations/tenant';

const CURRENT_TENANT_VERSION = tenantMigrations[tenantMigrations.length - 1].name;

const TOKEN = OPERATOR_TOKEN;
let t: TestApp;
let disabled: TestApp;
const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  [t, disabled] = await Promise.all([createTestApp({ PLATFORM_ADMIN_TOKEN: TOKEN }), createTestApp()]);
});
afterAll(async () => {
  await t?.close();
  await disabled?.close();
});

const op = () => operator(t);

describe('authorisation of /platform', () => {
  it('does not exist (404) when PLATFORM_ADMIN_TOKEN is not set', async () => {
    const res = await operator(disabled).get('/platform/tenants');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ valid: false, errorcode: 404, message: 'operator API disabled (PLATFORM_ADMIN_TOKEN is not set)' });
    // whatever the path, and before a body is read
    expect((await operator(disabled).post('/platform/no-such-call').send({ x: 1 })).body.message).toBe(
      'operator API disabled (PLATFORM_ADMIN_TOKEN is not set)',
    );
  });

  it('answers 401 without a token or with a wrong one, on every path, before reading the body', async () => {
    const none = await operator(t, null).get('/platform/tenants');
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ valid: false, errorcode: 401, message: 'operator token required: send Authorization: Bearer <PLATFORM_ADMIN_TOKEN>' });
    const wrong = await operator(t, `${TOKEN}x`).get('/platform/tenants');
    expect(wrong.body).toEqual({ valid: false, errorcode: 401, message: 'wrong operator token' });
    // a token of another length, a body that is no JSON, a path no route has: still the token's 401
    const short = await operator(t, 'x').post('/platform/tenants').set('Content-Type', 'application/json').send('{not json');
    expect(short.body).toEqual({ valid: false, errorcode: 401, message: 'wrong operator token' });
    expect((await operator(t, null).get('/platform/no-such-call')).status).toBe(401);
    const scheme = await request(t.app).get('/platform/tenants').set('Authorization', `Basic ${TOKEN}`);
    expect(scheme.body.message).toMatch(/^operator token required/);
  });

  it('does not let a tenant session in: the cookie is no operator token', async () => {
    const res = await request(t.app).get('/platform/tenants').set('Cookie', 'tg-visit=whatever');
    expect(res.status).toBe(401);
  });

  it('answers an unknown call with the 404 envelope, and a bad body after the token with the 420', async () => {
    const unknown = await op().get('/platform/no-such-call');
    expect(unknown.body).toEqual({ valid: false, errorcode: 404, message: 'unknown operator call: GET /platform/no-such-call' });
    const bad = await op().post('/platform/tenants').set('Content-Type', 'application/json').send('{not json');
    expect(bad.body).toMatchObject({ valid: false, errorcode: 420 });
    // OPTIONS is no operator call either: no Allow answer
    const options = await request(t.app).options('/platform/tenants').set('Authorization', `Bearer ${TOKEN}`);
    expect(options.status).toBe(404);
    expect(options.headers.allow).toBeUndefined();
    expect(options.body.message).toBe('unknown operator call: OPTIONS /platform/tenants');
  });
});

describe('tenant operations over HTTP', () => {
  it('lists tenants with hosts, schema version and size', async () => {
    const acme = await importDemoTenant(t, 'acme');
    const res = await op().get('/platform/tenants');
    expect(res.status).toBe(200);
    const row = res.body.tenants.find((x: any) => x.slug === acme.slug);
    expect(row).toMatchObject({ name: 'Acme Industries', status: 'active', hosts: [acme.host], schema_version: CURRENT_TENANT_VERSION });
    expect(row.schema_size_bytes).toBeGreaterThan(0);
    expect((await op().get(`/platform/tenants/${acme.slug}`)).body.tenants[0].slug).toBe(acme.slug);
    expect((await op().get('/platform/tenants/no-such')).status).toBe(404);
  });

  it('creates a tenant, adds and removes a host', async () => {
    const slug = unique('api');
    const created = await op()
      .post('/platform/tenants')
      .send({ slug, name: 'Api Ltd', hosts: [`${slug}.test`] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ valid: true, tenants: [{ slug, name: 'Api Ltd', hosts: [`${slug}.test`] }] });
    const added = await op()
      .post(`/platform/tenants/${slug}/hosts`)
      .send({ host: `www.${slug}.test` });
    expect(added.body.tenants[0].hosts).toEqual([`${slug}.test`, `www.${slug}.test`]);
    expect((await client(t, `www.${slug}.test`).get('/api/configitems/mail.from')).status).toBe(401);
    const removed = await op().delete(`/platform/tenants/${slug}/hosts/www.${slug}.test`);
    expect(removed.body.tenants[0].hosts).toEqual([`${slug}.test`]);
    const missing = await op()
      .post('/platform/tenants')
      .send({ slug: unique('x'), hosts: ['x.test'] });
    expect(missing.body).toMatchObject({ errorcode: 419, message: 'missing parameter: name' });
    const badHost = await op().post(`/platform/tenants/${slug}/hosts`).send({ host: 'not a host' });
    expect(badHost.body.errorcode).toBe(420);
  });

  it('imports with slug and host overrides and exports the same document', async () => {
    const slug = unique('imp');
    const res = await op().post(`/platform/tenants/import?slug=${slug}&host=${slug}.test`).send(readDemoDocument('acme'));
    expect(res.status).toBe(201);
    expect(res.body.tenants[0]).toMatchObject({ slug, hosts: [`${slug}.test`] });
    expect(res.body.progress.length).toBeGreaterThan(0);
    const exported = await op().get(`/platform/tenants/${slug}/export?format=tenant-import/1`);
    expect(exported.body).toMatchObject({ format: 'tenant-import/1', tenant: { slug, hosts: [`${slug}.test`] } });
    expect(exported.body.persons.map((p: any) => p.user_name)).toEqual(readDemoDocument('acme').persons.map((p: any) => p.user_name));
    expect(exported.body.config['api.oauth.secret']).toBeDefined();
    const noSecrets = await op().get(`/platform/tenants/${slug}/export?format=tenant-import/1&secrets=0`);
    expect(noSecrets.body.config['api.oauth.secret']).toBeUndefined();
    // only 1, true, yes and on mean yes
    const unclear = await op().get(`/platform/tenants/${slug}/export?format=tenant-import/1&secrets=maybe`);
    expect(unclear.status).toBe(200);
    expect(unclear.body.config['api.oauth.secret']).toBeUndefined();
    expect((await op().get(`/platform/tenants/${slug}/export?format=tenant-import/1&secrets=YES`)).body.config['api.oauth.secret']).toBeDefined();
    const bad = await op()
      .post('/platform/tenants/import')
      .send({ format: 'tenant-import/1', tenant: { slug: unique('b'), name: 'B', hosts: ['b.test'] }, roles: [{ name: 'no ref' }] });
    expect(bad.body).toMatchObject({ valid: false, errorcode: 420 });
    expect(bad.body.message).toContain('roles.0.ref');
  });

  it('suspends (every tenant request answers 423) and resumes', async () => {
    const acme = await importDemoTenant(t, 'acme');
    await op().post(`/platform/tenants/${acme.slug}/suspend`).expect(200);
    const res = await client(t, acme.host).get('/api/configitems/mail.from');
    expect(res.status).toBe(423);
    expect(res.body).toMatchObject({ valid: false, errorcode: 423 });
    const resumed = await op().post(`/platform/tenants/${acme.slug}/resume`);
    expect(resumed.body.tenants[0].status).toBe('active');
    expect((await client(t, acme.host).get('/api/configitems/mail.from')).status).toBe(401);
  });

  it('bulk-creates tenants (201), lists the ones that failed, and names a bad line', async () => {
    const good = [unique('bulk'), unique('bulk')].map((slug) => ({ slug, name: `Bulk ${slug}`, hosts: [`${slug}.test`] }));
    const taken = { slug: (await importDemoTenant(t, 'globex')).slug, name: 'Taken', hosts: [`${unique('other')}.test`] };
    const res = await op()
      .post('/platform/tenants/bulk')
      .send({ tenants: [...good, taken] });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ valid: true, message: '2 tenants created, 1 failed', tenants: [], created: 2, from_spares: 0 });
    expect(res.body.failed).toEqual([{ slug: taken.slug, error: expect.stringContaining('already exists') }]);
    expect(res.body.progress.at(-1)).toMatch(/^2 tenants created in /);
    expect((await op().get(`/platform/tenants/${good[1].slug}`)).body.tenants[0].hosts).toEqual(good[1].hosts);
    expect((await op().post('/platform/tenants/bulk').send({})).body).toMatchObject({ errorcode: 419, message: 'missing parameter: tenants' });
    const bad = await op()
      .post('/platform/tenants/bulk')
      .send({ tenants: [{ slug: 'Not A Slug', name: 'x', hosts: ['x.test'] }] });
    expect(bad.body).toMatchObject({ valid: false, errorcode: 420, parameter: 'tenants[0].slug' });
  });

  it('checks a move before it starts: to is required, drop_after_seconds 0-300 (fractions too)', async () => {
    const acme = await importDemoTenant(t, 'acme');
    const move = (body: object) => op().post(`/platform/tenants/${acme.slug}/move`).send(body);
    expect((await move({})).body).toMatchObject({ errorcode: 419, message: 'missing parameter: to' });
    expect((await move({ to: '' })).body).toMatchObject({ errorcode: 419, message: 'missing parameter: to' });
    expect((await move({ to: 5 })).body).toMatchObject({ errorcode: 420, message: 'malformed parameter to: must be the name of a cluster' });
    for (const drop of [301, -1, 'soon']) {
      expect((await move({ to: 'main', drop_after_seconds: drop })).body).toMatchObject({
        errorcode: 420,
        message: 'malformed parameter drop_after_seconds: must be 0-300',
      });
    }
    // valid input reaches the mover, which refuses a move to the cluster the tenant is on
    const there = await move({ to: 'main', drop_after_seconds: '1.5' });
    expect(there.status, JSON.stringify(there.body)).toBe(409);
    expect((await move({ to: 'nowhere' })).body).toMatchObject({ valid: false, errorcode: 420 });
  });

  it('deletes only with confirm=<slug>', async () => {
    const acme = await importDemoTenant(t, 'acme');
    const refused = await op().delete(`/platform/tenants/${acme.slug}`);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain(`confirm=${acme.slug}`);
    const done = await op().delete(`/platform/tenants/${acme.slug}?confirm=${acme.slug}`);
    expect(done.status).toBe(200);
    expect(done.body.purged).toContainEqual(expect.stringMatching(/^redis-keys: /));
    const schema = await t.container.resolve(KNEX).raw('select to_regnamespace(?) as s', [acme.schema]);
    expect(schema.rows[0].s).toBeNull();
    expect((await client(t, acme.host).get('/api/configitems/mail.from')).status).toBe(404);
  });
});
