import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Knex } from 'knex';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { ACME_PASSWORDS, asAcme, loginCookie } from '../../support/login';
import { eventIdsByTitle, idOf } from '../../courses/events/events-support';
import { KNEX } from '../../../src/platform/tokens';
import { TenantDb, schemaNameForSlug } from '../../../src/platform/tenant-scope/tenant-db';
import { recordSecurityEvent } from '../../../src/platform/audit';
import { OPERATOR_TOKEN, operator, readArchive, tableRows, writeArchive } from './archive-support';

let t: TestApp;
let acme: DemoTenant;
let knex: Knex;
const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  t = await createTestApp({ PLATFORM_ADMIN_TOKEN: OPERATOR_TOKEN, DATA_DIR: mkdtempSync(join(tmpdir(), 'archive-')) });
  knex = t.container.resolve(KNEX);
  acme = await importDemoTenant(t, 'acme');
  await fill(acme);
});
afterAll(async () => t?.close());

/** Every kind of data the API writes: files, survey answers, registration history, messages, orders, config history, audit. */
async function fill(tenant: DemoTenant): Promise<void> {
  const admin = await asAcme(t, tenant.host, 'admin');
  const ola = await asAcme(t, tenant.host, 'ola');
  const kari = await asAcme(t, tenant.host, 'kari');
  await client(t, tenant.host).post('/api/login').send({ user_name: 'ola', password: 'wrong', login: 1 });
  for (const [item, value] of [
    ['password.max_age_days', 30],
    ['password.max_age_days', 45],
    ['order_system.enabled', true],
  ] as const) {
    expect((await admin.put(`/api/configitems/${item}`).send({ value })).status).toBe(200);
  }
  const ev = await eventIdsByTitle(t, tenant);
  const up = await ola
    .post('/api/files')
    .field('filetitle', 'My certificate')
    .field('ceid', String(ev['HSE basic course, December']))
    .attach('file', Buffer.from([0, 1, 2, 255, 254]), { filename: 'cert.bin', contentType: 'application/octet-stream' });
  expect(up.status, JSON.stringify(up.body)).toBe(200);
  const item = (title: string) => idOf(t, tenant, 'competences', { title });
  const survey = await ola.post('/api/surveyanswer').send({
    data: {
      items: [
        { competence_id: await item('How satisfied are you with your onboarding?'), value: '5' },
        {
          competence_id: await item('Upload your signed contract'),
          value: 'attached',
          file_data: Buffer.from('signed contract').toString('base64'),
          file_name: 'contract.txt',
        },
      ],
    },
  });
  expect(survey.status, JSON.stringify(survey.body)).toBe(200);
  const walk = await item('Daily walk-around check');
  await ola.put(`/api/personcompetences/${walk}`).send({ action: 'on' });
  await ola.put(`/api/personcompetences/${walk}`).send({ action: 'off' });
  await kari.put(`/api/personcompetences/${walk}`).send({ user_name: 'ola' });
  const removed = await admin.delete(`/api/personcompetences/${walk}?user_name=ola`);
  expect(removed.status, JSON.stringify(removed.body)).toBe(200);
  const signOn = await admin.post(`/api/personevents/${ev['HSE basic course, December']}`).send({ user_name: 'kari', order_reference: 'PO-4711' });
  expect(signOn.status, JSON.stringify(signOn.body)).toBe(200);
  expect((await admin.post('/api/messages').send({ user_name: 'ola', title: 'Welding course moved', text: 'Now at 09:00.' })).status).toBe(200);
  // The security audit log's writers arrive with a later issue; its table and writer are here.
  const db = new TenantDb(knex, tenant.schema);
  await recordSecurityEvent(db, { type: 'login.failed', actor: 'anonymous', subject: 'ola', ip: '127.0.0.1', details: { reason: 'password' } });
  await recordSecurityEvent(db, { type: 'config.changed', actor: 'admin', subject: 'password.max_age_days' });
}

/** The sample of calls whose answers must be the same on the original and the restored tenant. */
async function sample(host: string): Promise<Record<string, unknown>> {
  const admin = client(t, host, await loginCookie(t, host, 'admin', ACME_PASSWORDS.admin));
  const ola = client(t, host, await loginCookie(t, host, 'ola', ACME_PASSWORDS.ola));
  const out: Record<string, unknown> = {};
  for (const url of [
    '/api/persons?limit=100',
    '/api/person?user_name=ola',
    '/api/personcompetences?user_name=ola&view=full',
    '/api/changes?Type=personcompetences&startdate=2000-01-01&limit=100',
    '/api/changes?Type=events&startdate=2000-01-01&limit=100',
    '/api/events?limit=100',
    '/api/personevents?user_name=kari',
    '/api/surveyanswers?user_name=ola',
    '/api/messages?user_name=ola',
    '/api/configitems/password.max_age_days/history',
  ]) {
    const res = await admin.get(url);
    expect(res.status, url).toBe(200);
    out[url] = res.body;
  }
  const files = (await ola.get('/api/surveyanswers')).body.surveyanswers ?? [];
  const fileIds = await knex
    .withSchema(schemaNameForSlug(host.replace(/\.test$/, '')))
    .table('files')
    .orderBy('id')
    .pluck('id');
  for (const id of fileIds) {
    const res = await ola.get(`/api/files/${id}/content`);
    expect(res.status).toBe(200);
    out[`file ${id}`] = { bytes: Buffer.isBuffer(res.body) ? res.body.toString('base64') : res.text };
  }
  out.ownSurveys = files;
  return out;
}

/** An archive without what may differ between two exports of equal tenants. */
function comparable(archive: Map<string, Buffer>): Record<string, unknown> {
  const out: Record<string, unknown> = Object.fromEntries([...archive].map(([k, v]) => [k, v.toString('base64')]));
  const manifest = JSON.parse(archive.get('manifest.json')!.toString());
  out['manifest.json'] = { ...manifest, exported_at: null, tenant: { ...manifest.tenant, slug: null, hosts: null } };
  return out;
}

describe('tenant-archive/1 round trip', () => {
  it('exports everything, imports under another slug with the same ids, and exports again to the same archive', async () => {
    const first = await operator(t).bytes(`/platform/tenants/${acme.slug}/export`);
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toBe('application/gzip');
    const a = await readArchive(first.body);

    // Every table of the schema is in the export, so a table added later cannot be skipped silently.
    const tables = await knex('pg_tables').where({ schemaname: acme.schema }).whereNot({ tablename: 'schema_migrations' }).pluck('tablename');
    const manifest = JSON.parse(a.get('manifest.json')!.toString());
    expect(manifest.tables.map((x: { name: string }) => x.name).sort()).toEqual([...tables].sort());
    for (const table of tables)
      expect(
        [...a.keys()].some((k) => k.startsWith(`tables/${table}/`)),
        table,
      ).toBe(true);
    for (const table of ['survey_answers', 'files', 'messages', 'message_deliveries', 'orders', 'audit_log', 'person_events']) {
      expect(tableRows(a, table).length, table).toBeGreaterThan(0);
    }
    const registrations = tableRows(a, 'person_competences');
    expect(registrations.some((r) => r.superseded_at !== null)).toBe(true);
    expect(registrations.some((r) => r.deleted_at !== null)).toBe(true);
    expect([...a.keys()].filter((k) => k.startsWith('files/'))).toHaveLength(2);
    expect(a.get('platform/config_item_changes.jsonl')!.toString().split('\n').filter(Boolean).length).toBeGreaterThan(3);
    expect(a.get('platform/config_items.jsonl')!.toString()).toContain('api.oauth.secret');
    expect(tableRows(a, 'persons').every((p) => String(p.password_hash).startsWith('$'))).toBe(true);

    const slug = unique('restored');
    const host = `${slug}.test`;
    const imported = await operator(t).post(`/platform/tenants/import?slug=${slug}&host=${host}`).set('Content-Type', 'application/gzip').send(first.body);
    expect(imported.status, JSON.stringify(imported.body)).toBe(201);
    expect(imported.body.tenants[0]).toMatchObject({ slug, hosts: [host], status: 'active' });

    const second = await operator(t).bytes(`/platform/tenants/${slug}/export`);
    const b = await readArchive(second.body);
    expect(JSON.parse(b.get('manifest.json')!.toString()).tenant).toMatchObject({ slug, hosts: [host] });
    expect(comparable(b)).toEqual(comparable(a));

    expect(await sample(host)).toEqual(await sample(acme.host));
    // New rows continue the restored sequences instead of colliding with restored ids.
    const admin = await asAcme(t, host, 'admin');
    expect((await admin.post('/api/messages').send({ user_name: 'ola', title: 'After restore', text: 'x' })).status).toBe(200);
  });

  it('leaves secrets and password hashes out when asked, and keeps tenant-import/1 reachable', async () => {
    const res = await operator(t).bytes(`/platform/tenants/${acme.slug}/export?secrets=0&password_hashes=0`);
    const a = await readArchive(res.body);
    expect(a.get('platform/config_items.jsonl')!.toString()).not.toContain('api.oauth.secret');
    expect(tableRows(a, 'persons').every((p) => p.password_hash === null && p.pending_password_hash === null)).toBe(true);
    const legacy = await operator(t).get(`/platform/tenants/${acme.slug}/export?format=tenant-import/1`);
    expect(legacy.body.format).toBe('tenant-import/1');
    const bad = await operator(t).get(`/platform/tenants/${acme.slug}/export?format=zip`);
    expect(bad.body).toMatchObject({ valid: false, errorcode: 420 });
    expect((await operator(t).get('/platform/tenants/no-such/export')).body).toMatchObject({ valid: false, errorcode: 404 });
  });

  it('refuses broken archives with 420 naming the problem, and leaves no tenant behind', async () => {
    const good = (await operator(t).bytes(`/platform/tenants/${acme.slug}/export`)).body as Buffer;
    const entries = [...(await readArchive(good))];
    const future = entries.map(([n, d]): [string, Buffer] => {
      if (n !== 'manifest.json') return [n, d];
      const m = JSON.parse(d.toString());
      return [n, Buffer.from(JSON.stringify({ ...m, schema: { ...m.schema, version: '999_future' } }))];
    });
    const cases: [string, Buffer, RegExp][] = [
      ['newer schema', await writeArchive(future), /schema version 999_future is newer than this server's/],
      ['not gzip', Buffer.from('hello'), /not a complete gzip'd tar/],
      ['cut short', good.subarray(0, Math.floor(good.length / 2)), /not a complete gzip'd tar|truncated/],
      ['no manifest first', await writeArchive(entries.slice(1)), /first entry must be manifest.json/],
      ['no end', await writeArchive(entries.filter(([n]) => n !== 'end.json')), /truncated: end.json is missing/],
      ['rows missing', await writeArchive(entries.filter(([n]) => !n.startsWith('tables/persons/'))), /rows of table persons/],
      [
        'bad row',
        await writeArchive(entries.map(([n, d]) => [n, n.startsWith('tables/persons/') ? Buffer.from('{"id": "x"}\n') : d])),
        /tables\/persons\/000001.jsonl/,
      ],
    ];
    for (const [what, body, message] of cases) {
      const slug = unique('broken');
      const res = await operator(t).post(`/platform/tenants/import?slug=${slug}&host=${slug}.test`).set('Content-Type', 'application/gzip').send(body);
      expect(res.status, what).toBe(400);
      expect(res.body, what).toMatchObject({ valid: false, errorcode: 420 });
      expect(res.body.message, what).toMatch(message);
      expect((await operator(t).get(`/platform/tenants/${slug}`)).status, what).toBe(404);
    }
    const taken = await operator(t)
      .post(`/platform/tenants/import?slug=${acme.slug}&host=other-${acme.host}`)
      .set('Content-Type', 'application/gzip')
      .send(good);
    expect(taken.body).toMatchObject({ valid: false, errorcode: 409 });
  });
});
