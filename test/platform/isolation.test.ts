import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../support/test-app';
import { asAcme, loginCookie, ACME_PASSWORDS } from '../support/login';

let t: TestApp;
let first: DemoTenant;
let second: DemoTenant;

beforeAll(async () => {
  t = await createTestApp();
  // the same document twice: same user names, same ids, separate schemas
  [first, second] = await Promise.all([importDemoTenant(t, 'acme'), importDemoTenant(t, 'acme')]);
});
afterAll(async () => t?.close());

describe('tenant isolation under concurrency', () => {
  it('two tenants from one document, hit with 50 interleaved requests, each see only their own rows', async () => {
    const [kariA, adminA, adminB] = await Promise.all([asAcme(t, first.host, 'kari'), asAcme(t, first.host, 'admin'), asAcme(t, second.host, 'admin')]);
    const [olaA, olaB] = await Promise.all([adminA.get('/api/persons/ola'), adminB.get('/api/persons/ola')]);
    expect(olaA.body.persons[0].person_id).toBe(olaB.body.persons[0].person_id);

    const written = new Set<string>();
    const requests = Array.from({ length: 50 }, (_, i) => {
      if (i % 2 === 0) {
        const mobile = `+479100${String(i).padStart(4, '0')}`;
        written.add(mobile);
        return kariA
          .put('/api/persons/ola')
          .send({ person_data: { mobile } })
          .then((r) => ({ tenant: 'first', r }));
      }
      return (i % 4 === 1 ? adminB.get('/api/persons/ola') : adminB.get('/api/persons?limit=100')).then((r) => ({ tenant: 'second', r }));
    });
    const results = await Promise.all(requests);
    for (const { tenant, r } of results) {
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const ola = r.body.persons.find((p: { user_name: string }) => p.user_name === 'ola');
      if (tenant === 'second') expect(ola.mobile).toBe('+4790000012');
      else expect(written.has(ola.mobile)).toBe(true);
    }
    expect(written.has((await adminA.get('/api/persons/ola')).body.persons[0].mobile)).toBe(true);
    expect((await adminB.get('/api/persons/ola')).body.persons[0].mobile).toBe('+4790000012');
  });

  it('a session of one tenant means nothing on the other, though the person id is the same', async () => {
    const cookie = await loginCookie(t, first.host, 'ola', ACME_PASSWORDS.ola);
    expect((await client(t, first.host, cookie).get('/api/person')).status).toBe(200);
    expect((await client(t, second.host, cookie).get('/api/person')).status).toBe(401);
  });

  it('a password change in one tenant leaves the same user of the other tenant alone', async () => {
    const adminA = await asAcme(t, first.host, 'admin');
    await adminA.put('/api/persons/per').send({ person_data: { password: 'Only-In-First-1' } });
    const perB = await asAcme(t, second.host, 'per');
    expect((await perB.get('/api/person')).body.person[0]).toMatchObject({ user_name: 'per', must_change_password: null });
    await loginCookie(t, first.host, 'per', 'Only-In-First-1');
  });
});
