import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KNEX } from '../../../src/platform/tokens';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { asAcme } from '../../support/login';
import { competenceIdsByTitle } from '../competences/catalogue-ids';
import { binary, codeIn, foreignCourse, pdfText } from './certificate-support';

let t: TestApp;
let acme: DemoTenant;
let globex: DemoTenant;
let ids: Record<string, number>;
let ola: Awaited<ReturnType<typeof asAcme>>;
let kari: Awaited<ReturnType<typeof asAcme>>;
let per: Awaited<ReturnType<typeof asAcme>>;
let admin: Awaited<ReturnType<typeof asAcme>>;
let hse: number;

const verify = (code: string, accept = 'application/json') => client(t, acme.host).get(`/verify/${code}`).set('Accept', accept);

beforeAll(async () => {
  t = await createTestApp();
  [acme, globex] = await Promise.all([importDemoTenant(t, 'acme'), importDemoTenant(t, 'globex')]);
  [ola, kari, per, admin] = await Promise.all(['ola', 'kari', 'per', 'admin'].map((u) => asAcme(t, acme.host, u as 'ola')));
  ids = await competenceIdsByTitle(admin);
  hse = ids['HSE basic course'];
  // kari, ola's manager, registers ola's renewed HSE basic course with a diploma (date today, valid 24 months)
  const put = await kari.put(`/api/personcompetences/${hse}`).send({ user_name: 'ola', show_course_diploma: 1, grade: 5 });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
});
afterAll(async () => t?.close());

describe('GET /api/personcompetences/[competence_id]/certificate', () => {
  let code: string;

  it('ola downloads a PDF whose text holds his name, the competence, dates, the issuer and the verification URL', async () => {
    const res = await ola.get(`/api/personcompetences/${hse}/certificate`).buffer(true).parse(binary);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="certificate-${hse}.pdf"`);
    const body = res.body as Buffer;
    expect(body.subarray(0, 5).toString()).toBe('%PDF-');
    const text = await pdfText(body);
    expect(text).toContain('Ola Hansen');
    expect(text).toContain('HSE basic course');
    expect(text).toContain('Acme Industries');
    expect(text).toMatch(/Valid until: \d{4}-\d{2}-\d{2}/);
    code = codeIn(text);
    expect(text).toContain(`https://${acme.host}/verify/${code}`);
  });

  it('the code is issued once: kari (his manager) and admin (superuser) download the same code; one certificate.issued event', async () => {
    for (const who of [kari, admin]) {
      const res = await who.get(`/api/personcompetences/${hse}/certificate?user_name=ola`).buffer(true).parse(binary);
      expect(res.status).toBe(200);
      expect(codeIn(await pdfText(res.body))).toBe(code);
    }
    const log = await admin.get('/api/auditlog?type=certificate.issued');
    expect(log.status).toBe(200);
    const entries = log.body.auditlog.filter((e: any) => e.subject === 'ola');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actor: 'ola', details: { competence_id: hse } });
  });

  it("per (no manager of ola) gets 403; another tenant's competence and a competence ola never registered 404; no diploma 409", async () => {
    const denied = await per.get(`/api/personcompetences/${hse}/certificate?user_name=ola`);
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ valid: false, errorcode: 403 });
    const foreign = await foreignCourse(t, globex, 'homer');
    expect((await ola.get(`/api/personcompetences/${foreign}/certificate`)).body).toMatchObject({ valid: false, errorcode: 404 });
    expect((await ola.get(`/api/personcompetences/${ids['Leadership 101']}/certificate`)).body).toMatchObject({ errorcode: 404 });
    // a formal competence has no diploma
    const formal = await ola.get(`/api/personcompetences/${ids['Welding certificate (EN ISO 9606)']}/certificate`);
    expect(formal.status).toBe(409);
    expect(formal.body.message).toContain('show_course_diploma');
    expect((await client(t, acme.host).get(`/api/personcompetences/${hse}/certificate`)).status).toBe(401);
  });

  it('a course registered without show_course_diploma, or expired, is a 409', async () => {
    const put = await kari.put(`/api/personcompetences/${ids['Leadership 101']}`).send({ user_name: 'ola' });
    expect(put.status).toBe(200);
    expect((await ola.get(`/api/personcompetences/${ids['Leadership 101']}/certificate`)).status).toBe(409);
    await kari
      .put(`/api/personcompetences/${ids['Leadership 101']}`)
      .send({ user_name: 'ola', show_course_diploma: 1, date: '2020-01-01', valid_until: '2021-01-01' });
    const expired = await ola.get(`/api/personcompetences/${ids['Leadership 101']}/certificate`);
    expect(expired.status).toBe(409);
    expect(expired.body.message).toContain('expired');
  });

  it('GET /verify/<code> says valid with name, competence, dates and issuer; the page is plain HTML under the strict CSP', async () => {
    const res = await verify(code);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ valid: true, message: 'certificate valid' });
    expect(res.body.certificates[0]).toMatchObject({
      status: 'valid',
      name: 'Ola Hansen',
      competence: 'HSE basic course',
      issuer: 'Acme Industries',
      revoked_reason: null,
    });
    expect(res.body.certificates[0].valid_until).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const page = await verify(code, 'text/html');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.text).toContain('Valid: this certificate is genuine');
    expect(page.text).toContain('Ola Hansen');
    expect(page.text).toContain('<html lang="en">');
    expect(page.text).not.toMatch(/<script|style=/);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    // a scanner's browser sends no JSON preference: the page
    expect((await client(t, acme.host).get(`/verify/${code}`)).headers['content-type']).toContain('text/html');
  });

  it("an unknown or malformed code is 404, as a page or the envelope; another tenant's host does not know the code", async () => {
    expect((await verify('A'.repeat(32))).body).toMatchObject({ valid: false, errorcode: 404 });
    expect((await verify('nope')).status).toBe(404);
    const page = await verify('A'.repeat(32), 'text/html');
    expect(page.status).toBe(404);
    expect(page.text).toContain('Certificate not found');
    expect((await client(t, globex.host).get(`/verify/${code}`).set('Accept', 'application/json')).status).toBe(404);
  });

  it('after kari deletes the registration, the code verifies as revoked (registration_removed); the certificate is gone (404)', async () => {
    const del = await kari.delete(`/api/personcompetences/${hse}?user_name=ola`);
    expect(del.status, JSON.stringify(del.body)).toBe(200);
    const res = await verify(code);
    expect(res.status).toBe(200);
    expect(res.body.certificates[0]).toMatchObject({
      status: 'revoked',
      revoked_reason: 'registration_removed',
      name: 'Ola Hansen',
      competence: 'HSE basic course',
    });
    expect((await verify(code, 'text/html')).text).toContain('Revoked');
    expect((await ola.get(`/api/personcompetences/${hse}/certificate`)).status).toBe(404);
  });

  it('erasing the person revokes their certificates and the page no longer names them', async () => {
    const put = await kari.put(`/api/personcompetences/${hse}`).send({ user_name: 'nils', show_course_diploma: 1 });
    expect(put.status).toBe(200);
    const pdf = await kari.get(`/api/personcompetences/${hse}/certificate?user_name=nils`).buffer(true).parse(binary);
    const nils = codeIn(await pdfText(pdf.body));
    expect((await verify(nils)).body.certificates[0]).toMatchObject({ status: 'valid', name: 'Nils Dahl' });
    expect((await admin.post('/api/persons/nils/erase').send({ confirm: 'nils' })).status).toBe(200);
    expect((await verify(nils)).body.certificates[0]).toMatchObject({
      status: 'revoked',
      revoked_reason: 'person_erased',
      name: null,
      competence: 'HSE basic course',
    });
  });

  it('a registration valid until yesterday verifies as expired', async () => {
    const put = await kari.put(`/api/personcompetences/${hse}`).send({ user_name: 'ola', show_course_diploma: 1 });
    expect(put.status).toBe(200);
    const pdf = await ola.get(`/api/personcompetences/${hse}/certificate`).buffer(true).parse(binary);
    const fresh = codeIn(await pdfText(pdf.body));
    // the registration's end moves into the past behind the API's back (time passing)
    const knex = t.container.resolve<Knex>(KNEX).withSchema(acme.schema);
    const olaId = (await knex.clone().table('persons').where('user_name', 'ola').first('id')).id;
    await knex
      .clone()
      .table('person_competences')
      .where({ person_id: olaId, competence_id: hse })
      .whereNull('superseded_at')
      .whereNull('deleted_at')
      .update({ valid_until: '2020-01-01', date: '2019-01-01' });
    expect((await verify(fresh)).body.certificates[0]).toMatchObject({ status: 'expired', valid_until: '2020-01-01' });
  });

  it('verification is rate limited per client address (60 a minute), with Retry-After', async () => {
    let last: any;
    for (let i = 0; i < 70; i++) {
      last = await verify('B'.repeat(32));
      if (last.status === 429) break;
    }
    expect(last.status).toBe(429);
    expect(last.body).toMatchObject({ valid: false, errorcode: 429 });
    expect(Number(last.headers['retry-after'])).toBeGreaterThan(0);
  });
});
