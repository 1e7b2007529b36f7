import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { GLOBEX_PASSWORDS, loginCookie } from '../../support/login';
import { acmeWithKarisManagers, type AcmeClient } from '../persons/demo-refs';
import { KNEX } from '../../../src/platform/tokens';

/** Who may deactivate and reactivate whom, what it answers, and what it leaves in the security event log. */

let t: TestApp;
let acme: DemoTenant;
let globex: DemoTenant;
let admin: AcmeClient;
let kari: AcmeClient;
let boss: AcmeClient;

beforeAll(async () => {
  t = await createTestApp();
  ({ acme, admin, kari, boss } = await acmeWithKarisManagers(t));
  globex = await importDemoTenant(t, 'globex');
});
afterAll(async () => t?.close());

const full = (res: { body: any }) => res.body.persons[0];

describe('PUT /api/persons/[user_name]/deactivate and /reactivate', () => {
  it("the person's manager may: the full view shows deactivated and deactivated_at, then they are active again", async () => {
    const res = await kari.put('/api/persons/ola/deactivate');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.message).toBe('ola is deactivated');
    expect(full(res)).toMatchObject({ user_name: 'ola', deactivated: true, deactivated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect(full(await admin.get('/api/persons/ola'))).toMatchObject({ deactivated: true });

    const again = await kari.put('/api/persons/ola/deactivate');
    expect(again.status).toBe(200);
    expect(again.body.message).toBe('ola is already deactivated; nothing changed');

    const back = await kari.put('/api/persons/ola/reactivate');
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    expect(back.body.message).toMatch(/^ola is reactivated/);
    expect(full(back)).toMatchObject({ user_name: 'ola', deactivated: false, deactivated_at: null });
    expect((await kari.put('/api/persons/ola/reactivate')).body.message).toBe('ola is not deactivated; nothing changed');
    // the simple view stays the spec's
    expect(full(await kari.put('/api/persons/ola/reactivate?view=simple'))).not.toHaveProperty('deactivated');
  });

  it('a manager of another subtree, a person who manages the caller, and oneself get 403', async () => {
    // per sits in Human Resources, outside kari's Operations
    const other = await kari.put('/api/persons/per/deactivate');
    expect(other.body).toMatchObject({ valid: false, errorcode: 403 });
    // boss manages the whole company, kari's organisation included
    expect((await kari.put('/api/persons/boss/deactivate')).body).toMatchObject({ valid: false, errorcode: 403 });
    const self = await kari.put('/api/persons/kari/deactivate');
    expect(self.body).toMatchObject({ valid: false, errorcode: 403 });
    expect(self.body.message).toContain('yourself');
    // a superuser neither (the last superuser would lock the tenant out)
    const adminSelf = await admin.put('/api/persons/admin/deactivate');
    expect(adminSelf.body).toMatchObject({ valid: false, errorcode: 403 });
    expect(adminSelf.body.message).toContain('yourself');
    // a plain person has no say
    const ola = client(t, acme.host, await loginCookie(t, acme.host, 'ola', 'Ola-Worker-Pass-1'));
    expect((await ola.put('/api/persons/nils/deactivate')).body).toMatchObject({ valid: false, errorcode: 403 });
    for (const name of ['per', 'boss', 'kari', 'admin', 'nils']) expect(full(await admin.get(`/api/persons/${name}`)).deactivated, name).toBe(false);
  });

  it('a manager cannot deactivate a superuser in their subtree; boss (a manager above kari) may deactivate kari', async () => {
    const db = t.container.resolve(KNEX).withSchema(acme.schema);
    await db.table('persons').where({ user_name: 'siri' }).update({ superuser: true });
    try {
      const res = await kari.put('/api/persons/siri/deactivate');
      expect(res.body).toMatchObject({ valid: false, errorcode: 403 });
      expect(res.body.message).toContain('superuser');
    } finally {
      await db.table('persons').where({ user_name: 'siri' }).update({ superuser: false });
    }
    expect((await boss.put('/api/persons/kari/deactivate')).status).toBe(200);
    expect((await boss.put('/api/persons/kari/reactivate')).status).toBe(200);
  });

  it("unknown and another tenant's user names are 404", async () => {
    expect((await admin.put('/api/persons/nobody-here/deactivate')).body).toMatchObject({ valid: false, errorcode: 404 });
    // homer exists on globex only
    expect((await admin.put('/api/persons/homer/deactivate')).body).toMatchObject({ valid: false, errorcode: 404 });
    expect((await admin.put('/api/persons/homer/reactivate')).body).toMatchObject({ valid: false, errorcode: 404 });
    const globexAdmin = client(t, globex.host, await loginCookie(t, globex.host, 'admin', GLOBEX_PASSWORDS.admin));
    expect((await globexAdmin.put('/api/persons/ola/deactivate')).body).toMatchObject({ valid: false, errorcode: 404 });
    expect(full(await admin.get('/api/persons/ola')).deactivated).toBe(false);
  });

  it('takes an Idempotency-Key: a repeat is replayed, not run again', async () => {
    const first = await admin.put('/api/persons/siri/deactivate').set('Idempotency-Key', 'deactivate-siri-1');
    expect(first.body.message).toBe('siri is deactivated');
    const again = await admin.put('/api/persons/siri/deactivate').set('Idempotency-Key', 'deactivate-siri-1');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await admin.put('/api/persons/siri/reactivate').set('Idempotency-Key', 'reactivate-siri-1')).status).toBe(200);
  });

  it('writes person.deactivated and person.reactivated to the security event log, naming actor and subject', async () => {
    const log = await admin.get('/api/auditlog?type=person.deactivated,person.reactivated&user_name=siri');
    expect(log.status, JSON.stringify(log.body)).toBe(200);
    const entries = log.body.auditlog.map((e: any) => ({ type: e.type, actor: e.actor, subject: e.subject }));
    expect(entries).toEqual([
      { type: 'person.reactivated', actor: 'admin', subject: 'siri' },
      { type: 'person.deactivated', actor: 'admin', subject: 'siri' },
    ]);
    const deactivated = log.body.auditlog.find((e: any) => e.type === 'person.deactivated');
    expect(deactivated.details).toMatchObject({ via: 'api', signons_ended: 0, promoted: 0, person_id: expect.any(Number) });
    const olas = await admin.get('/api/auditlog?type=person.deactivated,person.reactivated&user_name=ola');
    expect(olas.body.auditlog.map((e: any) => [e.type, e.actor])).toEqual([
      ['person.reactivated', 'kari'],
      ['person.deactivated', 'kari'],
    ]);
  });
});
