import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { GLOBEX_PASSWORDS, asAcme, loginCookie } from '../../support/login';

let t: TestApp;
let acme: DemoTenant;
let globex: DemoTenant;

beforeAll(async () => {
  t = await createTestApp();
  [acme, globex] = await Promise.all([importDemoTenant(t, 'acme'), importDemoTenant(t, 'globex')]);
});
afterAll(async () => t?.close());

describe('PUT /api/configitems/:config_item_id', () => {
  it('lets acme admin change password.max_age_days with a JSON body; the new value is read back at once', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const res = await admin.put('/api/configitems/password.max_age_days').send({ value: 30 });
    expect(res.status).toBe(200);
    expect(res.body.configitems[0]).toMatchObject({ config_item_id: 'password.max_age_days', value: 30, is_default: false, secret: false });
    const read = await admin.get('/api/configitems/password.max_age_days');
    expect(read.body.configitems[0].value).toBe(30);
  });

  it('reads form values as JSON for lists and booleans, as text for strings, and empty as null', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const list = await admin.put('/api/configitems/cors.origins').type('form').send({ value: '["https://a.example","https://b.example:8443"]' });
    expect(list.body.configitems[0].value).toEqual(['https://a.example', 'https://b.example:8443']);
    const bool = await admin.put('/api/configitems/signon.require_mobile').type('form').send({ value: 'true' });
    expect(bool.body.configitems[0].value).toBe(true);
    const text = await admin.put('/api/configitems/mail.from').type('form').send({ value: 'Acme <x@acme.example>' });
    expect(text.body.configitems[0].value).toBe('Acme <x@acme.example>');
    const cleared = await admin.put('/api/configitems/api.oauth.issuer').type('form').send({ value: '' });
    expect(cleared.body.configitems[0]).toMatchObject({ value: null, is_default: true });
  });

  it('answers 420 naming the item and what is wrong, and keeps the old value', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const before = (await admin.get('/api/configitems/signon.forward_url_hosts')).body.configitems[0].value;
    const neg = await admin.put('/api/configitems/password.max_age_days').send({ value: -1 });
    expect(neg.status).toBe(400);
    expect(neg.body).toMatchObject({ valid: false, errorcode: 420, parameter: 'value', config_item_id: 'password.max_age_days' });
    expect(neg.body.message).toMatch(/^malformed parameter value: config item password\.max_age_days: .*>=1/);
    const origin = await admin.put('/api/configitems/cors.origins').send({ value: ['https://ok.example/path'] });
    expect(origin.body.errorcode).toBe(420);
    expect(origin.body.message).toContain('cors.origins: 0: must be an origin');
    const badJson = await admin.put('/api/configitems/signon.forward_url_hosts').type('form').send({ value: '[nope' });
    expect(badJson.body).toMatchObject({
      errorcode: 420,
      message: 'malformed parameter value: config item signon.forward_url_hosts: not valid JSON for a host_list item',
    });
    expect((await admin.get('/api/configitems/signon.forward_url_hosts')).body.configitems[0].value).toEqual(before);
  });

  it('answers 419 without value, 404 for an unknown item', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const missing = await admin.put('/api/configitems/mail.from').send({});
    expect(missing.body).toMatchObject({ errorcode: 419, message: 'missing parameter: value' });
    const unknown = await admin.put('/api/configitems/no.such.item').send({ value: 1 });
    expect(unknown.status).toBe(404);
  });

  it('refuses anonymous callers (401) and non-superusers (403)', async () => {
    expect((await client(t, acme.host).put('/api/configitems/mail.from').send({ value: 'x' })).status).toBe(401);
    const kari = await asAcme(t, acme.host, 'kari');
    const res = await kari.put('/api/configitems/mail.from').send({ value: 'x' });
    expect(res.status).toBe(403);
    expect(res.body.errorcode).toBe(403);
  });

  it("does not accept acme admin's session on globex's host", async () => {
    const acmeCookie = await loginCookie(t, acme.host, 'admin', 'Acme-Admin-Pass-1');
    const res = await client(t, globex.host, acmeCookie).put('/api/configitems/mail.from').send({ value: 'x' });
    expect(res.status).toBe(401);
    const history = await client(t, globex.host, acmeCookie).get('/api/configitems/mail.from/history');
    expect(history.status).toBe(401);
  });

  it("changes only the caller's tenant", async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    await admin.put('/api/configitems/sms.from').send({ value: 'ACMEONLY' });
    const globexAdmin = client(t, globex.host, await loginCookie(t, globex.host, 'admin', GLOBEX_PASSWORDS.admin));
    expect((await globexAdmin.get('/api/configitems/sms.from')).body.configitems[0].value).not.toBe('ACMEONLY');
  });

  it('never echoes a secret: the answer says is_set, the history says [secret changed]', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const secret = 'a-new-shared-secret-of-enough-length';
    const res = await admin.put('/api/configitems/api.oauth.secret').send({ value: secret });
    expect(res.status).toBe(200);
    expect(res.body.configitems[0]).toEqual({
      config_item_id: 'api.oauth.secret',
      description: expect.any(String),
      type: 'string',
      secret: true,
      is_set: true,
      section: 'security',
      last_changed_by: 'admin',
      last_changed_at: expect.any(String),
    });
    expect(JSON.stringify(res.body)).not.toContain(secret);
    const history = await admin.get('/api/configitems/api.oauth.secret/history');
    expect(history.body.changes[0]).toMatchObject({ changed_by: 'admin', secret: true, old_value: null, new_value: '[secret changed]' });
    expect(JSON.stringify(history.body)).not.toContain(secret);
    expect(JSON.stringify(history.body)).not.toContain('acme-swt-shared-secret');
  });
});

describe('GET /api/configitems/:config_item_id/history', () => {
  it('lists who changed what when, newest first, including the import', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    await admin.put('/api/configitems/signon.block_overlapping').send({ value: false });
    const res = await admin.get('/api/configitems/signon.block_overlapping/history');
    expect(res.status).toBe(200);
    const [latest, imported] = res.body.changes;
    expect(latest).toMatchObject({ config_item_id: 'signon.block_overlapping', changed_by: 'admin', old_value: true, new_value: false, secret: false });
    expect(Date.parse(latest.changed_at)).not.toBeNaN();
    expect(imported).toMatchObject({ changed_by: 'import', old_value: null, new_value: true });
  });

  it('is for superusers only', async () => {
    expect((await client(t, acme.host).get('/api/configitems/mail.from/history')).status).toBe(401);
    expect((await (await asAcme(t, acme.host, 'ola')).get('/api/configitems/mail.from/history')).status).toBe(403);
    expect((await (await asAcme(t, acme.host, 'admin')).get('/api/configitems/nope/history')).status).toBe(404);
  });
});

describe('GET /api/configitems/definitions', () => {
  it('gives superusers every item with description and type, secrets as set / not set', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const res = await admin.get('/api/configitems/definitions');
    expect(res.status).toBe(200);
    const byId = Object.fromEntries(res.body.configitems.map((i: any) => [i.config_item_id, i]));
    expect(byId['password.max_age_days']).toMatchObject({ type: 'int_or_null', secret: false, description: expect.any(String) });
    expect(byId['api.oauth.secret']).toMatchObject({ secret: true, is_set: true });
    expect(byId['api.oauth.secret']).not.toHaveProperty('value');
    expect(byId['api.oauth.secret_encoding']).toMatchObject({ type: 'enum', options: ['text', 'base64'], value: 'text', is_default: true });
    expect((await (await asAcme(t, acme.host, 'kari')).get('/api/configitems/definitions')).status).toBe(403);
    expect((await client(t, acme.host).get('/api/configitems/definitions')).status).toBe(401);
  });
});

describe('a change reaches every process', () => {
  it('is seen by a second app instance within a second', async () => {
    const b = await createTestApp();
    try {
      const onA = await asAcme(t, acme.host, 'admin');
      const onB = await asAcme(b, acme.host, 'admin');
      const read = async () => (await onB.get('/api/configitems/cors.origins')).body.configitems[0].value;
      expect(await read()).not.toContain('https://new.acme.example'); // B has the tenant cached now
      await onA.put('/api/configitems/cors.origins').send({ value: ['https://new.acme.example'] });
      let seen: unknown;
      for (let i = 0; i < 40; i++) {
        seen = await read();
        if (JSON.stringify(seen) === '["https://new.acme.example"]') break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(seen).toEqual(['https://new.acme.example']);
    } finally {
      await b.close();
    }
  });
});
