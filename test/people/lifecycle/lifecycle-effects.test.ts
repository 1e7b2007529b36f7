import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { ACME_PASSWORDS, asAcme } from '../../support/login';
import { idsByRef, userNames } from '../persons/demo-refs';
import { tenantDb } from '../../courses/events/events-support';
import { dayAfter, remindersOf, scanNow, scannerFor } from '../../messaging/reminders/reminders-support';
import { TenantAdminService } from '../../../src/tenancy/tenants/tenant-admin.service';

/**
 * What a deactivation does to the rest of the tenant: coming sign-ons end (the wait list moves up,
 * with its notice), past ones stay; lists, participants, the competence level and reminders leave
 * the person out unless state=deactivated or all is asked for; reactivation brings none of the
 * ended sign-ons back; a tenant export and import keeps the state.
 */

let t: TestApp;
let acme: DemoTenant;
let admin: Awaited<ReturnType<typeof asAcme>>;
let kari: Awaited<ReturnType<typeof asAcme>>;
let events: Record<string, number>;
let orgs: Record<string, number>;
let course: number;

beforeAll(async () => {
  t = await createTestApp();
  acme = await importDemoTenant(t, 'acme');
  [admin, kari] = await Promise.all([asAcme(t, acme.host, 'admin'), asAcme(t, acme.host, 'kari')]);
  events = await idsByRef(t, acme, 'events');
  orgs = await idsByRef(t, acme, 'organisations');
  course = (await idsByRef(t, acme, 'competences'))['leadership-101'];
});
afterAll(async () => t?.close());

const db = () => tenantDb(t, acme);
const personId = async (userName: string) => (await db().table('persons').where({ user_name: userName }).first('id')).id as number;
const statusOf = async (userName: string, eventId: number) =>
  (
    await db()
      .table('person_events')
      .where({ person_id: await personId(userName), event_id: eventId })
      .orderBy('id', 'desc')
      .first('status')
  )?.status;
const ok = (res: { status: number; body: unknown }) => expect(res.status, JSON.stringify(res.body)).toBe(200);

describe('deactivating nils', () => {
  let full: number;

  it('ends his places in coming events, gives the freed seat to the wait list with its notice, and keeps past ones', async () => {
    [{ id: full }] = await db()
      .table('events')
      .insert({ competence_id: course, title: 'Lifecycle day', starts_at: '2034-03-01T08:00:00Z', ends_at: '2034-03-01T15:00:00Z', max_participants: 1 })
      .returning('id');
    ok(await admin.post(`/api/personevents/${full}`).send({ user_name: 'nils' }));
    const waiting = await admin.post(`/api/personevents/${full}`).send({ user_name: 'ola' });
    expect(waiting.body.personevents[0].status).toBe('waitlist');
    // nils took part in the 2024 course: history
    await db()
      .table('person_events')
      .insert({ person_id: await personId('nils'), event_id: events['hse-basic-2024'], status: 'signed_on', passed: true });
    expect(await statusOf('nils', events['hse-basic-dec'])).toBe('signed_on');

    const res = await admin.put('/api/persons/nils/deactivate');
    ok(res);
    expect(res.body.message).toBe('nils is deactivated; 2 sign-on(s) to coming events ended, 1 person(s) moved from the wait list to a seat');
    expect(await statusOf('nils', full)).toBe('signed_off');
    expect(await statusOf('nils', events['hse-basic-dec'])).toBe('signed_off');
    expect(await statusOf('nils', events['hse-basic-2024'])).toBe('signed_on');
    expect(await statusOf('ola', full)).toBe('signed_on');
    const notice = await db()
      .table('messages')
      .where({ recipient_id: await personId('ola'), title: 'You have a seat: Lifecycle day' });
    expect(notice).toHaveLength(1);
    const log = await admin.get('/api/auditlog?type=person.deactivated&user_name=nils');
    expect(log.body.auditlog[0].details).toMatchObject({ signons_ended: 2, promoted: 1, via: 'api' });
  });

  it('takes no new sign-on for him (409)', async () => {
    const res = await admin.post(`/api/personevents/${events['leadership-spring']}`).send({ user_name: 'nils' });
    expect(res.body).toMatchObject({ valid: false, errorcode: 409 });
    expect(res.body.message).toBe('cannot sign nils on: the person is deactivated');
  });

  it('leaves him out of participants unless state=deactivated or all', async () => {
    const past = events['hse-basic-2024'];
    const names = async (q: string) => {
      const res = await admin.get(`/api/participants/${past}${q}`);
      ok(res);
      return res.body.participants.map((p: any) => p.user_name).sort();
    };
    expect(await names('')).toEqual(['ola']);
    expect(await names('?state=active')).toEqual(['ola']);
    expect(await names('?state=deactivated')).toEqual(['nils']);
    expect(await names('?state=all')).toEqual(['nils', 'ola']);
    // named, he is still found: his history stays readable
    ok(await admin.get(`/api/participants/${past}/nils`));
    expect((await admin.get(`/api/participants/${past}?state=gone`)).body).toMatchObject({ errorcode: 420, parameter: 'state' });
  });

  it('leaves him out of the competence level of his organisation unless asked for; his own level still answers', async () => {
    const level = async (q: string) => (await admin.get(`/api/competencelevel?organisation_id=${orgs['acme-ops-north']}${q}`)).body.competencelevel[0];
    expect((await level('')).persons).toBe(1);
    expect((await level('&state=deactivated')).persons).toBe(1);
    expect((await level('&state=all')).persons).toBe(2);
    expect((await level('&state=all')).required).toBeGreaterThan((await level('')).required);
    expect((await admin.get('/api/competencelevel?user_name=nils')).body.competencelevel[0]).toMatchObject({ user_name: 'nils' });
  });

  it('reactivated, he is listed again but his ended sign-ons stay ended', async () => {
    ok(await admin.put('/api/persons/nils/reactivate'));
    expect(await statusOf('nils', full)).toBe('signed_off');
    expect(await statusOf('nils', events['hse-basic-dec'])).toBe('signed_off');
    expect((await admin.get(`/api/competencelevel?organisation_id=${orgs['acme-ops-north']}`)).body.competencelevel[0].persons).toBe(2);
    // and he may sign on again himself
    const nils = await asAcme(t, acme.host, 'nils');
    expect((await nils.get('/api/person')).status).toBe(200);
  });
});

describe('person lists', () => {
  it('GET /api/persons and organisation persons leave a deactivated person out by default (cached answers too), state=deactivated|all show them', async () => {
    const list = async (who: typeof admin, url: string) => {
      const res = await who.get(url);
      ok(res);
      return userNames(res.body);
    };
    const south = `/api/organisations/${orgs['acme-ops-south']}/persons`;
    // asked (and cached) before the deactivation
    expect(await list(admin, '/api/persons')).toContain('siri');
    expect(await list(kari, south)).toEqual(['siri']);
    ok(await kari.put('/api/persons/siri/deactivate'));

    expect(await list(admin, '/api/persons')).not.toContain('siri');
    expect(await list(admin, '/api/persons?state=active')).not.toContain('siri');
    expect(await list(admin, '/api/persons?state=deactivated')).toEqual(['siri']);
    const all = await admin.get('/api/persons?state=all&view=full&limit=100');
    expect(all.body.persons.find((p: any) => p.user_name === 'siri')).toMatchObject({ deactivated: true });
    expect(all.body.persons.find((p: any) => p.user_name === 'ola')).toMatchObject({ deactivated: false, deactivated_at: null });
    expect(await list(kari, south)).toEqual([]);
    expect(await list(kari, `${south}?state=all`)).toEqual(['siri']);
    expect(await list(kari, `/api/persons?organisation_id=${orgs['acme-ops']}&recursive=1&state=deactivated`)).toEqual(['siri']);
    expect((await admin.get('/api/persons?state=retired')).body).toMatchObject({ errorcode: 420, parameter: 'state' });
    // the person themself is still there by name
    expect((await admin.get('/api/persons/siri')).body.persons[0]).toMatchObject({ user_name: 'siri', deactivated: true });

    ok(await kari.put('/api/persons/siri/reactivate'));
    expect(await list(admin, '/api/persons')).toContain('siri');
    expect(await list(admin, '/api/persons?state=deactivated')).toEqual([]);
  });
});

describe('expiry reminders', () => {
  it('skip a deactivated person and remind them again once reactivated', async () => {
    const fire = (await idsByRef(t, acme, 'competences'))['fire-ecourse'];
    const now = new Date();
    for (const userName of ['ola', 'per']) {
      ok(await admin.put(`/api/personcompetences/${fire}`).send({ user_name: userName, date: dayAfter(now, -300), valid_until: dayAfter(now, 5) }));
    }
    ok(await admin.put('/api/persons/per/deactivate'));
    const scan = () => scanNow(scannerFor(t.container, [acme.tenantId]));
    await scan();
    expect(await remindersOf(admin, 'ola')).toHaveLength(1);
    expect(await remindersOf(admin, 'per')).toEqual([]);

    ok(await admin.put('/api/persons/per/reactivate'));
    await scan();
    expect(await remindersOf(admin, 'per')).toHaveLength(1);
    expect(await remindersOf(admin, 'ola')).toHaveLength(1);
  });
});

describe('tenant export and import', () => {
  it('carry the deactivated state (persons[].deactivated, deactivated_at): the copy refuses the login too', async () => {
    ok(await admin.put('/api/persons/expired/deactivate'));
    const tenants = t.container.resolve(TenantAdminService);
    const doc = await tenants.export(acme.slug);
    const exported = doc.persons.find((p) => p.user_name === 'expired')!;
    expect(exported).toMatchObject({ deactivated: true, deactivated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) });
    expect(doc.persons.find((p) => p.user_name === 'ola')).not.toHaveProperty('deactivated');

    const slug = `lifecycle-${randomBytes(4).toString('hex')}`;
    await tenants.import(doc, { slug, hosts: [`${slug}.test`] });
    const again = await tenants.export(slug);
    expect(again.persons.find((p) => p.user_name === 'expired')).toMatchObject({ deactivated: true, deactivated_at: exported.deactivated_at });
    const login = await client(t, `${slug}.test`).post('/api/login').send({ user_name: 'expired', password: ACME_PASSWORDS.expired, login: 1 });
    expect(login.status).toBe(401);
    expect(login.body.message).toContain('deactivated');
    // a document that only says deactivated: true is deactivated as of the import
    const bare = structuredClone(doc);
    delete bare.persons.find((p) => p.user_name === 'expired')!.deactivated_at;
    const slug2 = `lifecycle-${randomBytes(4).toString('hex')}`;
    await tenants.import(bare, { slug: slug2, hosts: [`${slug2}.test`] });
    expect((await tenants.export(slug2)).persons.find((p) => p.user_name === 'expired')).toMatchObject({ deactivated: true });
  });
});
