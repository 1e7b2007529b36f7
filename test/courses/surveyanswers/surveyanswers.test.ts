import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { asAcme, loginCookie, GLOBEX_PASSWORDS } from '../../support/login';
import { idOf } from '../events/events-support';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let t: TestApp;
let acme: DemoTenant;
let globex: DemoTenant;
let q: Record<string, number>;

beforeAll(async () => {
  t = await createTestApp({ DATA_DIR: mkdtempSync(join(tmpdir(), 'surveys-')) });
  [acme, globex] = await Promise.all([importDemoTenant(t, 'acme'), importDemoTenant(t, 'globex')]);
  q = {
    survey: await idOf(t, acme, 'competences', { title: 'Onboarding survey' }),
    satisfaction: await idOf(t, acme, 'competences', { title: 'How satisfied are you with your onboarding?' }),
    documents: await idOf(t, acme, 'competences', { title: 'Upload your signed contract' }),
    comment: await idOf(t, acme, 'competences', { title: 'Comment on the contract' }),
    hse: await idOf(t, acme, 'competences', { title: 'HSE basic course' }),
  };
});
afterAll(async () => t?.close());

const answer = (value: string) => ({
  items: [
    { competence_id: q.satisfaction, value },
    {
      competence_id: q.documents,
      value: 'attached',
      file_data: Buffer.from('signed contract').toString('base64'),
      file_name: 'contract.txt',
      children: [{ competence_id: q.comment, value: 'all fine' }],
    },
  ],
});

describe('survey answers', () => {
  it('ola answers the onboarding survey, files included; a locked answer refuses PUT until unlocked', async () => {
    const ola = await asAcme(t, acme.host, 'ola');
    const created = await ola.post('/api/surveyanswer').send({ data: answer('5') });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const a = created.body.surveyanswer[0];
    expect(a).toMatchObject({ survey_id: q.survey, survey_title: 'Onboarding survey', user_name: 'ola', locked: false });
    expect(a.items[0]).toEqual({ competence_id: q.satisfaction, value: '5' });
    expect(a.items[1].file_id).toBeGreaterThan(0);
    expect(a.items[1].file_data).toBeUndefined();
    const content = await ola.get(`/api/files/${a.items[1].file_id}/content`);
    expect(content.status).toBe(200);
    expect(Buffer.from(content.body).toString()).toBe('signed contract');

    const kari = await asAcme(t, acme.host, 'kari');
    const locked = await kari.put(`/api/surveyanswers/${a.surveyanswer_id}/lock`);
    expect(locked.body.surveyanswers[0].locked).toBe(true);
    const refused = await ola.put(`/api/surveyanswers/${a.surveyanswer_id}`).send({ data: { items: [{ competence_id: q.satisfaction, value: '3' }] } });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ valid: false, errorcode: 409 });
    expect(refused.body.message).toContain('POST /api/surveyanswer');

    expect((await kari.put(`/api/surveyanswers/${a.surveyanswer_id}/unlock`)).body.surveyanswers[0].locked).toBe(false);
    const replaced = await ola.put(`/api/surveyanswers/${a.surveyanswer_id}`).send({
      data: JSON.stringify({
        items: [
          { competence_id: q.satisfaction, value: '3' },
          { competence_id: q.documents, file_id: a.items[1].file_id },
        ],
      }),
    });
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
    expect(replaced.body.surveyanswers[0].items[0].value).toBe('3');
    const again = await ola.get(`/api/surveyanswer/${a.surveyanswer_id}`);
    expect(again.body.surveyanswer[0].items).toHaveLength(2);
  });

  it('refuses a competence that is not a question of the survey (420), and wrong nesting', async () => {
    const ola = await asAcme(t, acme.host, 'ola');
    const wrong = await ola.post('/api/surveyanswer').send({ survey_id: q.survey, data: { items: [{ competence_id: q.hse, value: 'x' }] } });
    expect(wrong.body).toMatchObject({ valid: false, errorcode: 420 });
    expect(wrong.body.message).toContain('data[items][0][competence_id]');
    const nested = await ola.post('/api/surveyanswer').send({ data: { items: [{ competence_id: q.comment, value: 'x' }] } });
    expect(nested.body.errorcode).toBe(420);
    const noSurvey = await ola.post('/api/surveyanswer').send({ data: { items: [{ competence_id: q.hse }] } });
    expect(noSurvey.body.errorcode).toBe(420);
    expect((await ola.post('/api/surveyanswer').send({})).body.errorcode).toBe(419);
    expect((await ola.post('/api/surveyanswer').type('form').send({ data: '{nope' })).body.errorcode).toBe(420);
    const fileOnPut = await ola.post('/api/surveyanswer').send({ data: { items: [{ competence_id: q.satisfaction, value: '1' }] } });
    const id = fileOnPut.body.surveyanswer[0].surveyanswer_id;
    const put = await ola.put(`/api/surveyanswers/${id}`).send({ data: { items: [{ competence_id: q.documents, file_data: 'aGk=', file_name: 'a.txt' }] } });
    expect(put.body.errorcode).toBe(420);
    expect(put.body.message).toContain('POST');
  });

  it('lists answers by user_name and for the survey owner; others may not', async () => {
    const nils = await asAcme(t, acme.host, 'nils');
    await nils.post('/api/surveyanswer').send({ data: { items: [{ competence_id: q.satisfaction, value: '4' }] } });
    const own = await nils.get('/api/surveyanswers?user_name=nils');
    expect(own.body.surveyanswers).toHaveLength(1);
    expect(own.body.surveyanswers[0].items).toBeUndefined();
    expect((await nils.get('/api/surveyanswers')).status).toBe(403);
    const kari = await asAcme(t, acme.host, 'kari');
    const all = await kari.get(`/api/surveyanswers?survey_id=${q.survey}&view=full&limit=100`);
    expect(all.body.surveyanswers.map((a: any) => a.user_name)).toEqual(expect.arrayContaining(['nils', 'ola']));
  });

  it('security: 401 anonymous, 403 for other persons and lock by the answerer, 404 across tenants', async () => {
    const ola = await asAcme(t, acme.host, 'ola');
    const mine = (await ola.post('/api/surveyanswer').send({ data: { items: [{ competence_id: q.satisfaction, value: '2' }] } })).body.surveyanswer[0];
    expect((await client(t, acme.host).get(`/api/surveyanswer/${mine.surveyanswer_id}`)).status).toBe(401);
    const per = await asAcme(t, acme.host, 'per');
    expect((await per.get(`/api/surveyanswer/${mine.surveyanswer_id}`)).status).toBe(403);
    expect(
      (await per.put(`/api/surveyanswers/${mine.surveyanswer_id}`).send({ data: { items: [{ competence_id: q.satisfaction, value: '1' }] } })).status,
    ).toBe(403);
    expect((await ola.put(`/api/surveyanswers/${mine.surveyanswer_id}/lock`)).status).toBe(403);
    expect((await per.post('/api/surveyanswer').send({ user_name: 'ola', data: { items: [{ competence_id: q.satisfaction }] } })).status).toBe(403);
    const admin = await asAcme(t, acme.host, 'admin');
    expect((await admin.put(`/api/surveyanswers/${mine.surveyanswer_id}/lock`)).status).toBe(200);
    const globexAdmin = client(t, globex.host, await loginCookie(t, globex.host, 'admin', GLOBEX_PASSWORDS.admin));
    expect((await globexAdmin.get(`/api/surveyanswer/${mine.surveyanswer_id}`)).status).toBe(404);
    expect((await globexAdmin.put(`/api/surveyanswers/${mine.surveyanswer_id}/unlock`)).status).toBe(404);
  });
});
