import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type DemoTenant, type TestApp } from '../../support/test-app';
import { acmeWithKarisManagers, idsByRef, type AcmeClient } from '../../people/persons/demo-refs';

// PUT /api/organisationalfunctions/[id]: a manager never assigns functions to themself or to their own manager.
let t: TestApp;
let acme: DemoTenant;
let role: Record<string, number>;
let org: Record<string, number>;
let admin: AcmeClient, kari: AcmeClient, boss: AcmeClient;

beforeAll(async () => {
  t = await createTestApp();
  ({ acme, admin, kari, boss } = await acmeWithKarisManagers(t));
  [role, org] = await Promise.all([idsByRef(t, acme, 'roles'), idsByRef(t, acme, 'organisations')]);
  const made = await admin.put(`/api/organisations/${org['acme-ops']}/organisationalfunctions`).send({ organisationalfunction_ids: [role['safety-rep']] });
  expect(made.status).toBe(200);
});
afterAll(async () => t?.close());

const fn = (c: AcmeClient, body: Record<string, unknown>) => c.put(`/api/organisationalfunctions/${role['safety-rep']}`).send(body);

describe('PUT /api/organisationalfunctions/[id]', () => {
  it('kari, manager of Operations, cannot give herself a function (403); boss can give it to her (200)', async () => {
    const self = await fn(kari, { action: 'update' });
    expect(self.status).toBe(403);
    expect(self.body).toMatchObject({ valid: false, errorcode: 403 });
    const byBoss = await fn(boss, { action: 'update', user_name: 'kari' });
    expect(byBoss.status, JSON.stringify(byBoss.body)).toBe(200);
    expect(byBoss.body.organisationalfunctions[0]).toMatchObject({ held: true });
  });

  it('kari may give up her own function (off, 200), as anyone may', async () => {
    expect((await fn(kari, { action: 'off' })).status).toBe(200);
  });

  it('kari cannot assign or remove functions of boss, who manages her (403)', async () => {
    expect((await fn(kari, { action: 'update', user_name: 'boss' })).status).toBe(403);
    await fn(admin, { action: 'update', user_name: 'boss' });
    expect((await fn(kari, { action: 'off', user_name: 'boss' })).status).toBe(403);
  });

  it('kari still assigns the function to ola, whom she manages (200)', async () => {
    expect((await fn(kari, { action: 'update', user_name: 'ola' })).status).toBe(200);
  });
});
