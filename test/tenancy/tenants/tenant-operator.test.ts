import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Knex } from 'knex';
import { client, createTestApp, type TestApp } from '../../support/test-app';
import { startSmtpSink, startTestWorkers, waitFor } from '../../messaging/messages/delivery-peers';
import { OPERATOR_TOKEN, cli, operator } from './archive-support';
import { TenantStore } from '../../../src/platform/tenant-scope/tenant-store';
import { KNEX } from '../../../src/platform/tokens';

let t: TestApp;
// The operator API's app: with the token set, the queue dashboard fixes the queue prefix at build,
// before the test workers could register theirs, so workers run on an app without it.
let opApp: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
let workers: Awaited<ReturnType<typeof startTestWorkers>> | undefined;
const slug = `onb-${randomBytes(4).toString('hex')}`;
const host = `${slug}.test`;
let schema: string;
// The relay reads this list on each pass: the tenant's id is known only once it is created.
const relayed: number[] = [];

beforeAll(async () => {
  smtp = await startSmtpSink();
  t = await createTestApp({ SMTP_URL: smtp.url });
  opApp = await createTestApp({ SMTP_URL: smtp.url, PLATFORM_ADMIN_TOKEN: OPERATOR_TOKEN });
  // A signal popped before the id is listed is dropped, so frequent sweeps pick the tenant up.
  workers = await startTestWorkers(t.container, relayed, undefined, { sweepMs: 200 });
});
afterAll(async () => {
  await workers?.stop();
  await t?.close();
  await opApp?.close();
  await smtp?.stop();
});

const op = () => operator(opApp);
const login = (password: string) => client(t, host).post('/api/login').send({ user_name: 'boss', password, login: 1 });
const mailedPassword = async (nth: number) => {
  const mails = await waitFor(`password mail ${nth}`, () => {
    const m = smtp.mails.filter((x) => x.rcptTo.includes('boss@onb.example'));
    return m.length >= nth ? m : null;
  });
  return /Password: (\S+)/.exec(mails[nth - 1].body)![1];
};
const auditRows = (type: string) =>
  t.container.resolve<Knex>(KNEX).withSchema(schema).table('audit_log').where({ type, actor: 'operator' }).select('subject', 'details');

describe('onboarding: POST /platform/tenants with admin', () => {
  it('creates the tenant, its root organisation and first superuser, mails a password that logs in and must be changed (418)', async () => {
    const admin = { user_name: 'boss', email: 'boss@onb.example', firstname: 'Bo', lastname: 'Ss' };
    const res = await op()
      .post('/platform/tenants')
      .send({ slug, name: 'Onboarded Ltd', hosts: [host], mail_from: 'Onboarded <training@onb.example>', admin });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const id = (await t.container.resolve(TenantStore).findIdBySlug(slug))!;
    schema = res.body.tenants[0].schema;
    relayed.push(id);
    const password = await mailedPassword(1);
    const first = await login(password);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.login[0].must_change_password).toBe(true);
    const cookie = (first.headers['set-cookie'] as unknown as string[]).find((c) => c.startsWith('tg-visit='))!.split(';')[0];
    const blocked = await client(t, host, cookie).get('/api/organisations');
    expect(blocked.body.errorcode).toBe(418);
    const orgs = await t.container.resolve<Knex>(KNEX).withSchema(schema).table('organisations').select('name');
    expect(orgs.map((o) => o.name)).toEqual(['Onboarded Ltd']);
  });

  it('a malformed admin is a 420 naming the field', async () => {
    const res = await op()
      .post('/platform/tenants')
      .send({ slug: `${slug}-x`, name: 'X', hosts: [`x.${host}`], mail_from: 'x@onb.example', admin: { user_name: 'a', email: 'nope' } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errorcode: 420, parameter: 'admin.email' });
  });
});

describe('operator config items', () => {
  it('lists every item, secrets as is_set only; sets a secret without ever showing it; audited as operator', async () => {
    const put = await op().put(`/platform/tenants/${slug}/configitems/api.oauth.secret`).send({ value: 'operator-set-secret-0123456789' });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(JSON.stringify(put.body)).not.toContain('operator-set-secret');
    const list = await op().get(`/platform/tenants/${slug}/configitems`);
    expect(JSON.stringify(list.body)).not.toContain('operator-set-secret');
    const secret = list.body.configitems.find((i: any) => i.config_item_id === 'api.oauth.secret');
    expect(secret).toMatchObject({ secret: true, is_set: true });
    expect(secret).not.toHaveProperty('value');
    const rows = await auditRows('config.changed');
    expect(rows.map((r) => r.subject)).toContain('api.oauth.secret');
    expect(JSON.stringify(rows)).not.toContain('operator-set-secret');
  });

  it('validates like the tenant admin (420) and a change applies at once', async () => {
    const bad = await op().put(`/platform/tenants/${slug}/configitems/password.max_age_days`).send({ value: 'soon' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ valid: false, errorcode: 420, parameter: 'value' });
    const unknown = await op().put(`/platform/tenants/${slug}/configitems/no.such.item`).send({ value: 1 });
    expect(unknown.status).toBe(404);
    const set = await op().put(`/platform/tenants/${slug}/configitems/api.rate_limit.per_minute`).send({ value: 77 });
    expect(set.body.configitems[0].value).toBe(77);
    const seen = await client(t, host).get('/api/organisations');
    expect(seen.headers['ratelimit-policy']).toBe('"minute";q=77;w=60');
    const cleared = await op().put(`/platform/tenants/${slug}/configitems/api.rate_limit.per_minute`).send({ value: null });
    expect(cleared.body.configitems[0].value).toBeNull();
  });
});

describe('operator password reset and the CLI', () => {
  it('POST /platform/.../reset_password mails a new password; audited', async () => {
    const res = await op().post(`/platform/tenants/${slug}/persons/boss/reset_password`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const password = await mailedPassword(2);
    expect((await login(password)).body.login[0].must_change_password).toBe(true);
    expect((await auditRows('password.reset')).length).toBeGreaterThanOrEqual(1);
    const missing = await op().post(`/platform/tenants/${slug}/persons/nobody/reset_password`);
    expect(missing.status).toBe(404);
  });

  it('npm run tenant -- config get|set and reset-password', async () => {
    const set = await cli('tenant', ['config', 'set', slug, 'password.max_age_days', '30']);
    expect(set.code, set.stderr).toBe(0);
    const get = await cli('tenant', ['config', 'get', slug, 'password.max_age_days']);
    expect(JSON.parse(get.stdout)).toMatchObject({ config_item_id: 'password.max_age_days', value: 30 });
    const secret = await cli('tenant', ['config', 'get', slug, 'api.oauth.secret']);
    expect(JSON.parse(secret.stdout)).toMatchObject({ secret: true, is_set: true });
    expect(secret.stdout).not.toContain('operator-set-secret');
    const bad = await cli('tenant', ['config', 'set', slug, 'password.max_age_days', 'soon']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/malformed parameter value/);
    const reset = await cli('tenant', ['reset-password', slug, 'boss']);
    expect(reset.code, reset.stderr).toBe(0);
    await mailedPassword(3);
  });
});
