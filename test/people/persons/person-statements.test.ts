import { tenantStatements } from '../../support/statements';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { asAcme } from '../../support/login';
import { cachesSettled } from '../../support/cache-settle';
import { KNEX } from '../../../src/platform/tokens';

/*
 * Issue 34: the access rule of a person route reads the person once, with what the handler needs,
 * and hands it over (ctx.target). Counted here: every statement the request runs on the tenant's
 * connections. Before issue 34, a superuser's PUT of someone's city ran 10 statements, 4 of them on
 * persons (the access rule's lookup, the writer's re-read, the UPDATE, the re-read for the answer),
 * and the view's details 3 more; a GET of the full view 2 (1 with the access lookup cached).
 */
let t: TestApp;
let acme: DemoTenant;
beforeAll(async () => {
  t = await createTestApp();
  acme = await importDemoTenant(t, 'acme');
});
afterAll(async () => t?.close());

type Api = Awaited<ReturnType<typeof asAcme>>;

/** The statements `fn` runs on the tenant's connections, once every earlier change is announced and the caller's account is cached again. */
async function statementsOf(api: Api, fn: () => Promise<unknown>): Promise<string[]> {
  await cachesSettled(t, t.container.resolve(KNEX), acme.schema);
  expect((await api.get('/api/person')).status).toBe(200);
  return recorded(fn);
}

async function recorded(fn: () => Promise<unknown>): Promise<string[]> {
  return (await tenantStatements(t, acme.tenantId, fn)).map((sql) => sql.replace(/\s+/g, ' '));
}

const onPersons = (sql: string[]) => sql.filter((s) => /\."persons"/.test(s));
/** Reads of the person row; the password hash is a credential, read apart on purpose (PersonCredentials). */
const personReads = (sql: string[]) => onPersons(sql).filter((s) => /^select /i.test(s) && !/^select "password_hash"/.test(s));
const ok = async (res: PromiseLike<{ status: number; body: any }>) => {
  const r = await res;
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r;
};

describe('GET and PUT /api/persons/[user_name] read the person once', () => {
  it('GET: one statement reads the person with the full view (organisation, roles, manages); asked again unchanged, none', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    let body: any;
    const sql = await statementsOf(admin, async () => (body = (await ok(admin.get('/api/persons/ola'))).body));
    expect(sql, sql.join('\n')).toHaveLength(1);
    expect(sql[0]).toMatch(/"person_roles"/);
    expect(body.persons[0]).toMatchObject({ user_name: 'ola', organisation: { name: expect.any(String) }, roles: expect.any(Array), manages: [] });
    // the access rule's read is a GET's, kept while the tables it reads announce no change
    expect(await recorded(() => ok(admin.get('/api/persons/ola')))).toEqual([]);
  });

  it("PUT of someone else: one read of the row, the UPDATE ... RETURNING, one statement (not on persons) for the view's details", async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    let body: any;
    const sql = await statementsOf(admin, async () => (body = (await ok(admin.put('/api/persons/ola').send({ person_data: { city: 'Tromsø' } }))).body));
    expect(personReads(sql), sql.join('\n')).toHaveLength(1);
    expect(onPersons(sql).filter((s) => /^update /i.test(s))).toHaveLength(1);
    expect(onPersons(sql), sql.join('\n')).toHaveLength(2);
    // the row read, BEGIN, the UPDATE, the webhook endpoints asked, COMMIT, the details (was 10)
    expect(sql.length, sql.join('\n')).toBeLessThanOrEqual(6);
    expect(body.persons[0]).toMatchObject({ user_name: 'ola', city: 'Tromsø', organisation: { name: expect.any(String) }, roles: expect.any(Array) });
  });

  it('PUT of oneself with old_password, and by a manager with role_ids: still one read of the row', async () => {
    const ola = await asAcme(t, acme.host, 'ola');
    const self = await statementsOf(ola, () =>
      ok(ola.put('/api/persons/ola').send({ person_data: { email: 'ola.self@acme.example' }, old_password: 'Ola-Worker-Pass-1' })),
    );
    expect(personReads(self), self.join('\n')).toHaveLength(1);
    const kari = await asAcme(t, acme.host, 'kari');
    const roles = (await ok(kari.get('/api/persons/ola'))).body.persons[0].roles.map((r: { role_id: number }) => r.role_id);
    const byManager = await statementsOf(kari, () => ok(kari.put('/api/persons/ola').send({ person_data: { jobtitle: 'Welder' }, role_ids: roles })));
    expect(personReads(byManager), byManager.join('\n')).toHaveLength(1);
  });
});
