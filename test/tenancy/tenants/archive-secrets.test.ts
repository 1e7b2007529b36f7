import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Knex } from 'knex';
import { createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { asAcme } from '../../support/login';
import { ACME_SWT } from '../../identity/sso/swt-test-token';
import { KNEX } from '../../../src/platform/tokens';
import { OPERATOR_TOKEN, operator, readArchive } from './archive-support';

/**
 * Issue 40 item 2: an archive (or tenant-import/1 document) asked for without secrets holds none:
 * no webhook signing secret (current or previous), no SWT key, no identity-provider client
 * secret, no API-client secret or its hash, no mailed password's hash. Every secret the tenant
 * has is made first, then every byte of the secret-free archive (each entry, unpacked) is searched
 * for each value. The default export's manifest says which secrets it holds.
 */
// large bodies on a shared, loaded machine: no timing is asserted, so give them time
vi.setConfig({ testTimeout: 300_000, hookTimeout: 300_000 });
let t: TestApp;
let knex: Knex;
let acme: DemoTenant;
/** Every secret value the tenant holds, by what it is. */
const secrets: Record<string, string> = {};

beforeAll(async () => {
  t = await createTestApp({
    PLATFORM_ADMIN_TOKEN: OPERATOR_TOKEN,
    DATA_DIR: mkdtempSync(join(tmpdir(), 'archive-secrets-')),
    WEBHOOKS_ALLOW_PRIVATE_TARGETS: '1',
  });
  knex = t.container.resolve(KNEX);
  acme = await importDemoTenant(t, 'acme');
  const admin = await asAcme(t, acme.host, 'admin');
  const db = () => knex.withSchema(acme.schema);

  // webhook: the current secret and, after a rotation, the previous one (it signs for 24 h more)
  const hook = await admin.post('/api/webhooks').send({ url: 'http://127.0.0.1:9/hook', events: ['person.updated'], description: 'HR' });
  expect(hook.status, JSON.stringify(hook.body)).toBe(200);
  secrets['webhook secret (previous)'] = hook.body.webhooks[0].secret;
  const rotated = await admin.post(`/api/webhooks/${hook.body.webhooks[0].webhook_id}/rotate_secret`);
  secrets['webhook secret'] = rotated.body.webhooks[0].secret;

  // API client: the secret shown once and the hash kept
  const client = await admin.post('/api/apiclients').send({ apiclient_data: { name: 'HR sync', scopes: ['api.read'], run_as_user_name: 'admin' } });
  expect(client.status, JSON.stringify(client.body)).toBe(201);
  secrets['API client secret'] = client.body.apiclients[0].client_secret;
  secrets['API client secret hash'] = (
    await db().table('api_clients').where({ client_id: client.body.apiclients[0].client_id }).first('secret_hash')
  ).secret_hash;

  // identity provider client secret (written as the admin's PUT writes it; saving one probes the issuer)
  secrets['identity provider client_secret'] = `idp-secret-${randomBytes(12).toString('hex')}`;
  await db().table('identity_providers').insert({
    id: randomUUID(),
    name: 'Entra',
    type: 'oidc',
    issuer: 'https://login.example.com/acme',
    client_id: 'acme-app',
    client_secret: secrets['identity provider client_secret'],
  });

  // SWT key: the demo tenant's api.oauth.secret
  secrets['SWT key (api.oauth.secret)'] = ACME_SWT.secret;

  // a mailed password not used yet, twice for one delivery (the earlier hash is kept too); the hash is
  // written when the worker sends the mail, so it is written here as the password mailer writes it
  const hash = () => `$argon2id$v=19$m=19456,t=2,p=1$${randomBytes(16).toString('base64')}$${randomBytes(32).toString('base64')}`;
  secrets['pending password hash'] = hash();
  secrets['earlier pending password hash'] = hash();
  await db()
    .table('persons')
    .where({ user_name: 'ola' })
    .update({
      pending_password_hash: secrets['pending password hash'],
      pending_password_earlier: [secrets['earlier pending password hash']],
      pending_password_expires_at: new Date(Date.now() + 3600_000),
    });
});
afterAll(async () => t?.close());

/** Every byte an archive holds: each entry's name and its bytes, unpacked. */
async function allBytes(gz: Buffer): Promise<string> {
  const entries = await readArchive(gz);
  return [...entries].map(([name, data]) => `${name}\n${data.toString('utf8')}`).join('\n');
}

describe('an archive without secrets', () => {
  it("holds none of the tenant's secrets, hashes included (secrets=0)", async () => {
    const res = await operator(t).bytes(`/platform/tenants/${acme.slug}/export?secrets=0`);
    expect(res.status).toBe(200);
    const bytes = await allBytes(res.body);
    const found = Object.entries(secrets)
      .filter(([, value]) => bytes.includes(value))
      .map(([what]) => what);
    expect(found).toEqual([]);
    // the rows are there, without their secrets
    const manifest = JSON.parse((await readArchive(res.body)).get('manifest.json')!.toString());
    expect(manifest.secrets).toBe(false);
    expect(manifest.secrets_held.config_items).toEqual([]);
    expect(Object.keys(manifest.secrets_held.columns).sort()).toEqual(['persons.password_hash']);
    expect(bytes).toContain('http://127.0.0.1:9/hook');
    expect(bytes).toContain('HR sync');
  });

  it('and the tenant-import/1 document without secrets neither', async () => {
    const res = await operator(t).get(`/platform/tenants/${acme.slug}/export?format=tenant-import/1&secrets=0`);
    expect(res.status).toBe(200);
    const text = JSON.stringify(res.body);
    expect(
      Object.entries(secrets)
        .filter(([, value]) => text.includes(value))
        .map(([what]) => what),
    ).toEqual([]);
  });

  it('imports back: the API client and the webhook endpoint are there, without a secret that works', async () => {
    const res = await operator(t).bytes(`/platform/tenants/${acme.slug}/export?secrets=0`);
    const slug = `nosecrets-${randomBytes(4).toString('hex')}`;
    const imported = await operator(t).post(`/platform/tenants/import?slug=${slug}&host=${slug}.test`).set('Content-Type', 'application/gzip').send(res.body);
    expect(imported.status, JSON.stringify(imported.body)).toBe(201);
    const schema = imported.body.tenants[0].schema;
    expect(await knex.withSchema(schema).table('api_clients').pluck('secret_hash')).toEqual(['']);
    expect(await knex.withSchema(schema).table('webhook_endpoints').select('secret', 'previous_secret')).toEqual([{ secret: '', previous_secret: null }]);
  });
});

describe('the default archive', () => {
  it('says in its manifest which secrets it holds', async () => {
    const res = await operator(t).bytes(`/platform/tenants/${acme.slug}/export`);
    const archive = await readArchive(res.body);
    const manifest = JSON.parse(archive.get('manifest.json')!.toString());
    expect(manifest.secrets).toBe(true);
    expect(manifest.secrets_held.config_items).toContain('api.oauth.secret');
    expect(manifest.secrets_held.columns).toMatchObject({
      'webhook_endpoints.secret': 1,
      'webhook_endpoints.previous_secret': 1,
      'api_clients.secret_hash': 1,
      'identity_providers.client_secret': 1,
      'persons.pending_password_hash': 1,
      'persons.pending_password_earlier': 1,
      'persons.password_hash': expect.any(Number),
    });
    // and it holds them all (a backup restores every integration)
    const bytes = await allBytes(res.body);
    expect(
      Object.entries(secrets)
        .filter(([, value]) => !bytes.includes(value))
        .map(([what]) => what),
    ).toEqual(['API client secret']);
  });
});
