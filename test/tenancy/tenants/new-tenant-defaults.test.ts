import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { startSmtpSink, startTestWorkers, waitFor } from '../../messaging/messages/delivery-peers';
import { OPERATOR_TOKEN, operator } from './archive-support';
import { TenantStore } from '../../../src/platform/tenant-scope/tenant-store';
import { asAcme } from '../../support/login';
import { swtToken } from '../../identity/sso/swt-test-token';

/*
 * Issue 40: tenants created from now on refuse SWT tokens without ExpiresOn (existing tenants keep
 * their value, the admin console recommends turning it on), and onboarding works without mail_from
 * when the platform has a default sender (MAIL_FROM): the first admin's password mail goes out.
 */
const MAIL_FROM = 'Training Platform <no-reply@platform.example>';
let t: TestApp;
let opApp: TestApp;
let acme: DemoTenant;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
let workers: Awaited<ReturnType<typeof startTestWorkers>> | undefined;
const relayed: number[] = [];
const slug = `nt-${randomBytes(4).toString('hex')}`;
const host = `${slug}.test`;

beforeAll(async () => {
  smtp = await startSmtpSink();
  t = await createTestApp({ SMTP_URL: smtp.url, MAIL_FROM });
  opApp = await createTestApp({ SMTP_URL: smtp.url, MAIL_FROM, PLATFORM_ADMIN_TOKEN: OPERATOR_TOKEN });
  acme = await importDemoTenant(t, 'acme');
  workers = await startTestWorkers(t.container, relayed, undefined, { sweepMs: 200 });
});
afterAll(async () => {
  await workers?.stop();
  await t?.close();
  await opApp?.close();
  await smtp?.stop();
});

const op = () => operator(opApp);
const item = async (tenantSlug: string, id: string) =>
  (await op().get(`/platform/tenants/${tenantSlug}/configitems`)).body.configitems.find((i: any) => i.config_item_id === id);

describe('onboarding without mail_from (platform default sender MAIL_FROM)', () => {
  it('creates the tenant with its first admin, whose password mail goes out from MAIL_FROM and logs in', async () => {
    const admin = { user_name: 'first', email: 'first@newco.example', firstname: 'Fi', lastname: 'Rst' };
    const res = await op()
      .post('/platform/tenants')
      .send({ slug, name: 'NewCo', hosts: [host], admin });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    relayed.push((await t.container.resolve(TenantStore).findIdBySlug(slug))!);
    const mail = await waitFor("the first admin's password mail", () => smtp.mails.find((m) => m.rcptTo.includes('first@newco.example')));
    expect(mail.headers.from).toBe(MAIL_FROM);
    const password = /Password: (\S+)/.exec(mail.body)![1];
    const login = await client(t, host).post('/api/login').send({ user_name: 'first', password, login: 1 });
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    expect(login.body.login[0].must_change_password).toBe(true);
    // the tenant's own mail.from stays unset: the platform default is used, not copied
    expect(await item(slug, 'mail.from')).toMatchObject({ value: null, is_default: true });
  });
});

describe('api.oauth.require_expires_on for tenants created from now on', () => {
  it('a created tenant (with or without admin) starts with true; an imported (existing) tenant keeps false', async () => {
    expect(await item(slug, 'api.oauth.require_expires_on')).toMatchObject({ value: true, is_default: false });
    const bare = `${slug}-bare`;
    expect(
      (
        await op()
          .post('/platform/tenants')
          .send({ slug: bare, name: 'Bare', hosts: [`${bare}.test`] })
      ).status,
    ).toBe(201);
    expect(await item(bare, 'api.oauth.require_expires_on')).toMatchObject({ value: true });
    expect(await item(acme.slug, 'api.oauth.require_expires_on')).toMatchObject({ value: false, is_default: true });
  });

  it('the created tenant refuses an SWT token without ExpiresOn, naming the check', async () => {
    const secret = 'newco-swt-shared-secret-0123456789';
    expect((await op().put(`/platform/tenants/${slug}/configitems/api.oauth.secret`).send({ value: secret })).status).toBe(200);
    const res = await client(t, host)
      .get('/api/person')
      .set('Authorization', `SWT ${swtToken(secret, { username: 'first' })}`);
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/\(expiry\).*no ExpiresOn/);
  });

  it('the admin console recommends turning it on where it is off (an existing tenant)', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const items = (await admin.get('/api/configitems/definitions')).body.configitems;
    expect(items.find((i: any) => i.config_item_id === 'api.oauth.require_expires_on')).toMatchObject({ value: false, recommended: true });
    // only items that have a recommendation carry one
    expect(items.find((i: any) => i.config_item_id === 'cors.origins')).not.toHaveProperty('recommended');
  });
});
