import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Knex } from 'knex';
import { client, createTestApp, importDemoTenant, type TestApp, type DemoTenant } from '../../support/test-app';
import { asAcme, loginCookie, GLOBEX_PASSWORDS } from '../../support/login';
import { setConfig } from '../../courses/events/events-support';
import { KNEX } from '../../../src/platform/tokens';
import { TenantResolver } from '../../../src/platform/tenant-scope/tenant-resolver';
import { cachesSettled } from '../../support/cache-settle';
import { PrincipalCache } from '../../../src/platform/auth/principal-cache';
import { OwnViewCache } from '../../../src/people/persons/own-view-cache';
import { ACME_SWT, inAnHour, swtToken } from '../../identity/sso/swt-test-token';

/*
 * GET /api/person is served from OwnViewCache while the tenant's account data is unchanged. These
 * tests prove it is cached (a write that announces nothing is not seen) and never stale (every
 * announced write, by any path, is seen; a write request of this process at once).
 */
let t: TestApp;
let acme: DemoTenant;
let globex: DemoTenant;
let knex: Knex;

beforeAll(async () => {
  t = await createTestApp();
  acme = await importDemoTenant(t, 'acme');
  globex = await importDemoTenant(t, 'globex');
  knex = t.container.resolve(KNEX);
});
afterAll(async () => t?.close());

async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting until ${what}`);
}

/** A write that fires no trigger: what no cache can know about. */
async function silently(fn: (trx: Knex.Transaction) => Promise<unknown>): Promise<void> {
  await knex.transaction(async (trx) => {
    await trx.raw('set local session_replication_role = replica');
    await fn(trx);
  });
}

type Api = Awaited<ReturnType<typeof asAcme>>;
const me = async (api: Api) => (await api.get('/api/person')).body.person[0];

describe('GET /api/person from the own-view cache', () => {
  it('is cached: a silent change is not seen, an announced one (any table of the view, any path) is', async () => {
    const ola = await asAcme(t, acme.host, 'ola');
    await cachesSettled(t, knex, acme.schema);
    const first = await me(ola);
    await silently((trx) => trx.withSchema(acme.schema).table('persons').where({ user_name: 'ola' }).update({ firstname: 'Silent' }));
    expect((await me(ola)).firstname).toBe(first.firstname);
    // any announced write to the tenant's persons: the row is read again, silent change included
    await knex.withSchema(acme.schema).table('persons').where({ user_name: 'siri' }).update({ jobtitle: 'Welder II' });
    await eventually('the silent change shows', async () => (await me(ola)).firstname === 'Silent');

    const org = first.organisation.organisation_id;
    await knex.withSchema(acme.schema).table('organisations').where({ id: org }).update({ name: 'Operations (renamed)' });
    await eventually('the organisation rename shows', async () => (await me(ola)).organisation.name === 'Operations (renamed)');

    const role = first.roles[0].role_id;
    await knex.withSchema(acme.schema).table('person_roles').where({ person_id: first.person_id, role_id: role }).delete();
    await eventually('the lost role shows', async () => !(await me(ola)).roles.some((r: { role_id: number }) => r.role_id === role));
    await knex.withSchema(acme.schema).table('roles').where({ id: role }).update({ name: 'Renamed role' });
    await knex.withSchema(acme.schema).table('person_roles').insert({ person_id: first.person_id, role_id: role });
    await eventually('the role is back, renamed', async () => (await me(ola)).roles.some((r: { name: string }) => r.name === 'Renamed role'));

    const managed = (await knex.withSchema(acme.schema).table('organisations').first('id')).id;
    await knex.withSchema(acme.schema).table('organisation_managers').insert({ person_id: first.person_id, organisation_id: managed });
    await eventually('the managed organisation shows', async () =>
      (await me(ola)).manages.some((o: { organisation_id: number }) => o.organisation_id === managed),
    );
  });

  it('a write request of this process is seen by the next request at once, before any notification', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const per = await asAcme(t, acme.host, 'per');
    await cachesSettled(t, knex, acme.schema);
    await me(per);
    await silently((trx) => trx.withSchema(acme.schema).table('persons').where({ user_name: 'per' }).update({ city: 'Silentville' }));
    expect((await me(per)).city).not.toBe('Silentville');
    const put = await admin.put('/api/persons/per').send({ person_data: { jobtitle: 'Clerk' } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(await me(per)).toMatchObject({ jobtitle: 'Clerk', city: 'Silentville' });
  });

  it('the same person id in two tenants never shares an entry; each view and person has its own', async () => {
    const acmeAdmin = await asAcme(t, acme.host, 'admin');
    const acmeMe = await me(acmeAdmin);
    const globexRow = await knex.withSchema(globex.schema).table('persons').where({ id: acmeMe.person_id }).first('user_name');
    expect(globexRow, 'the demo tenants share person ids').toBeTruthy();
    const cookie = await loginCookie(t, globex.host, globexRow.user_name, GLOBEX_PASSWORDS[globexRow.user_name]);
    const globexMe = (await client(t, globex.host, cookie).get('/api/person')).body.person[0];
    expect(globexMe).toMatchObject({ person_id: acmeMe.person_id, user_name: globexRow.user_name });
    expect((await me(acmeAdmin)).user_name).toBe('admin');
    const simple = (await acmeAdmin.get('/api/person?view=simple')).body.person[0];
    expect(simple.roles).toBeUndefined();
    expect((await me(acmeAdmin)).roles).toBeDefined();
  });

  it('a config change makes a new tenant object: entries made for the old one are not used', async () => {
    const siri = await asAcme(t, acme.host, 'siri');
    await cachesSettled(t, knex, acme.schema);
    await me(siri);
    await silently((trx) => trx.withSchema(acme.schema).table('persons').where({ user_name: 'siri' }).update({ phone: '+4711111111' }));
    expect((await me(siri)).phone).not.toBe('+4711111111');
    await setConfig(t, acme, 'api.rate_limit.per_minute', 5000);
    await eventually('the new tenant object reads again', async () => (await me(siri)).phone === '+4711111111');
  });
});

describe('the account an SWT token names', () => {
  it('is cached like the view: a silent change is not seen, an announced one is', async () => {
    const token = () => `SWT ${swtToken(ACME_SWT.secret, { Issuer: ACME_SWT.issuer, ExpiresOn: inAnHour(), username: 'nils' })}`;
    const persons = () => client(t, acme.host).get('/api/persons').set('Authorization', token());
    await cachesSettled(t, knex, acme.schema);
    expect((await persons()).status).toBe(403); // nils is no superuser
    await silently((trx) => trx.withSchema(acme.schema).table('persons').where({ user_name: 'nils' }).update({ superuser: true }));
    expect((await persons()).status).toBe(403);
    await knex.withSchema(acme.schema).table('roles').where({ id: -1 }).update({ name: 'nothing' }); // announced, changes nothing
    await eventually('the account is read again', async () => (await persons()).status === 200);
    await knex.withSchema(acme.schema).table('persons').where({ user_name: 'nils' }).update({ superuser: false });
    await eventually('nils is no superuser again', async () => (await persons()).status === 403);
  });
});

describe('OwnViewCache', () => {
  it('ends an entry when the password it shows becomes too old, and caches nothing while the listener is away', async () => {
    await setConfig(t, globex, 'password.max_age_days', 1);
    const tenant = (await t.container.resolve(TenantResolver).byTenantId(globex.tenantId))!;
    const cache = t.container.resolve(OwnViewCache);
    let loads = 0;
    const expiresSoon = { password_changed_at: new Date(Date.now() - 86_400_000 + 300), must_change_password: null };
    const load = async () => {
      loads++;
      return { ...expiresSoon };
    };
    await cache.get(tenant, 424242, 'full', load);
    await cache.get(tenant, 424242, 'full', load);
    expect(loads).toBe(1);
    await new Promise((r) => setTimeout(r, 400));
    await cache.get(tenant, 424242, 'full', load);
    expect(loads).toBe(2);

    const principals = t.container.resolve(PrincipalCache);
    await knex.raw("select pg_terminate_backend(pid) from pg_stat_activity where query ilike 'listen principal_changed%'");
    await eventually('the listener is gone', async () => !principals.enabled);
    const stable = async () => {
      loads++;
      return { user_name: 'x' };
    };
    loads = 0;
    await cache.get(tenant, 515151, 'full', stable);
    await cache.get(tenant, 515151, 'full', stable);
    expect(loads).toBe(2);
    await eventually('the listener is back', async () => principals.enabled);
  });
});
