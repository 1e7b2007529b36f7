import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, importDemoTenant, client, type TestApp, type DemoTenant } from '../../support/test-app';
import { ACME_PASSWORDS, asAcme } from '../../support/login';
import { idsByRef } from './demo-refs';
import { KNEX } from '../../../src/platform/tokens';
import { FILE_STORE } from '../../../src/platform/files/file-store';

let t: TestApp;
let acme: DemoTenant;
type Client = Awaited<ReturnType<typeof asAcme>>;
let admin: Client;

beforeAll(async () => {
  t = await createTestApp();
  acme = await importDemoTenant(t, 'acme');
  admin = await asAcme(t, acme.host, 'admin');
});
afterAll(async () => t?.close());

const db = () => t.container.resolve(KNEX).withSchema(acme.schema);

describe('GET /api/persons/[user_name]/export', () => {
  it('gives the person everything stored about them, history included, never a hash', async () => {
    const ola = await asAcme(t, acme.host, 'ola');
    const comps = await idsByRef(t, acme, 'competences');
    const [competenceId] = Object.values(comps);
    expect((await ola.post('/api/files').field('filetitle', 'Certificate').attach('file', Buffer.from('cert'), 'cert.pdf')).status).toBe(200);
    expect((await admin.post('/api/messages').send({ user_name: 'ola', title: 'Hello Ola', text: 'Personal note for Ola' })).status).toBe(200);
    await db()
      .table('person_competences')
      .insert([
        {
          person_id: (await db().table('persons').where('user_name', 'ola').first('id')).id,
          competence_id: competenceId,
          passed: 100,
          date: '2024-01-01',
          superseded_at: new Date(),
        },
      ]);
    const res = await ola.get('/api/persons/ola/export');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [e] = res.body.export;
    expect(e.person).toMatchObject({ user_name: 'ola', extern_person_id: 'HR-4711', birthdate: '1990-04-01' });
    expect(e.roles.length).toBeGreaterThan(0);
    expect(e.personcompetences.some((pc: any) => pc.superseded_at)).toBe(true);
    expect(e.messages).toEqual(expect.arrayContaining([expect.objectContaining({ title: 'Hello Ola', direction: 'received', deliveries: expect.any(Array) })]));
    expect(e.files[0]).toMatchObject({ filetitle: 'Certificate', download_url: expect.stringMatching(/^\/api\/files\/\d+\/content$/) });
    expect(e).toHaveProperty('personevents');
    expect(e).toHaveProperty('surveyanswers');
    expect(e.auditlog.some((a: any) => a.actor === 'ola' || a.subject === 'ola')).toBe(true);
    expect(JSON.stringify(res.body)).not.toMatch(/argon2|password_hash/);
  });

  it('is for the person and superusers: 403 for a manager, 404 for an unknown name', async () => {
    expect((await admin.get('/api/persons/ola/export')).status).toBe(200);
    const kari = await asAcme(t, acme.host, 'kari');
    const res = await kari.get('/api/persons/ola/export');
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ valid: false, errorcode: 403 });
    expect((await admin.get('/api/persons/nobody-here/export')).status).toBe(404);
  });
});

describe('POST /api/persons/[user_name]/erase', () => {
  it('refuses non-superusers (403) and a confirm that does not match (420)', async () => {
    const kari = await asAcme(t, acme.host, 'kari');
    expect((await kari.post('/api/persons/nils/erase').send({ confirm: 'nils' })).body).toMatchObject({ valid: false, errorcode: 403 });
    const bad = await admin.post('/api/persons/nils/erase').send({ confirm: 'nil' });
    expect(bad.body).toMatchObject({ valid: false, errorcode: 420 });
    expect(bad.body.message).toContain('confirm');
    expect((await admin.post('/api/persons/nils/erase').send({})).body).toMatchObject({ errorcode: 419 });
    expect((await admin.post('/api/persons/nobody-here/erase').send({ confirm: 'nobody-here' })).status).toBe(404);
  });

  it('anonymises the person, keeps their registrations counting and rewrites the audit log', async () => {
    const orgs = await idsByRef(t, acme, 'organisations');
    const levelOf = async () => (await admin.get(`/api/competencelevel?organisation_id=${orgs['acme-hr']}`)).body.competencelevel[0];
    const before = await levelOf();
    const per = await asAcme(t, acme.host, 'per');
    expect((await per.post('/api/files').attach('file', Buffer.from('per file'), 'per.txt')).status).toBe(200);
    expect((await admin.post('/api/messages').send({ user_name: 'per', title: 'Private', text: 'Secret text for Per', send_medium: 'sms' })).status).toBe(200);
    expect((await admin.put('/api/persons/per').send({ person_data: { email: 'per@acme.example' } })).status).toBe(200);
    const { id } = await db().table('persons').where('user_name', 'per').first('id');
    const keys = (await db().table('files').where('person_id', id).select('storage_key')).map((r: any) => r.storage_key);

    const res = await admin.post('/api/persons/per/erase').send({ confirm: 'per' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const placeholder = `erased-${id}`;
    expect(res.body.persons).toEqual([{ user_name: placeholder }]);

    // before the failed login below, which is logged under the name tried
    expect(await db().table('audit_log').where('actor', 'per').orWhere('subject', 'per')).toEqual([]);
    expect((await admin.get('/api/persons/per')).status).toBe(404);
    const login = await client(t, acme.host).post('/api/login').send({ user_name: 'per', password: ACME_PASSWORDS.per, login: 1 });
    expect(login.body.valid).toBe(false);
    expect((await per.get('/api/person')).status).toBe(401);

    const row = await db().table('persons').where('id', id).first();
    expect(row).toMatchObject({ user_name: placeholder, firstname: null, lastname: null, email: null, mobile: null, password_hash: null, employee_code: null });
    expect(await levelOf()).toEqual(before);

    const messages = await db().table('messages').where('recipient_id', id);
    expect(messages.length).toBeGreaterThan(0);
    expect(messages.every((m: any) => m.text === '' && m.title === '')).toBe(true);
    const deliveries = await db()
      .table('message_deliveries')
      .whereIn(
        'message_id',
        messages.map((m: any) => m.id),
      );
    expect(deliveries.every((d: any) => d.address === '')).toBe(true);

    expect(await db().table('files').where('person_id', id)).toEqual([]);
    const store = t.container.resolve(FILE_STORE);
    for (const key of keys) expect(await store.get(acme.schema, key)).toBeNull();

    const log = (await admin.get(`/api/auditlog?user_name=${placeholder}&limit=100`)).body.auditlog;
    expect(log[0]).toMatchObject({ type: 'person.erased', actor: 'admin', subject: placeholder });
    expect(log.some((e: any) => e.type === 'email.changed')).toBe(true);
    // the escape is scoped to the erase transaction: the log is append-only again
    await expect(db().table('audit_log').where('subject', placeholder).update({ subject: 'x' })).rejects.toThrow(/append-only/);
  });
});
