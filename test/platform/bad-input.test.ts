import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../support/test-app';
import { asAcme } from '../support/login';
import { readDemoDocument } from '../../seeds/demo-tenants';
import { operator } from '../tenancy/tenants/archive-support';

const OPERATOR_TOKEN = 'bad-input-operator-token-0123';
let t: TestApp;
let acme: DemoTenant;
let admin: Awaited<ReturnType<typeof asAcme>>;

beforeAll(async () => {
  t = await createTestApp({ PLATFORM_ADMIN_TOKEN: OPERATOR_TOKEN });
  acme = await importDemoTenant(t, 'acme');
  admin = await asAcme(t, acme.host, 'admin');
});
afterAll(async () => {
  await t?.close();
});

function expect420(res: { status: number; body: any }, parameter?: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body).toMatchObject({ valid: false, errorcode: 420 });
  if (parameter) expect(res.body.parameter).toBe(parameter);
}

describe('no bad input is ever a 500', () => {
  it('a NUL in a login form field is a 420 naming it, without a login', async () => {
    const res = await client(t, acme.host).post('/api/login').type('form').send('user_name=a%00b&password=x&login=1');
    expect420(res, 'user_name');
  });

  it('a NUL in a path parameter is a 420 naming it', async () => {
    expect420(await admin.get('/api/persons/%00'), 'user_name');
  });

  it('a NUL in a query parameter, a JSON body, a nested key or a JSON text parameter is a 420', async () => {
    expect420(await admin.get('/api/competences?term=%00'), 'term');
    expect420(await admin.put('/api/persons/ola').send({ person_data: { jobtitle: 'a\u0000b' } }), 'person_data[jobtitle]');
    expect420(await admin.get('/api/competences?custom_attributes[a%00]=1'));
    expect420(await admin.put('/api/persons/ola').type('form').send({ person_data: '{"jobtitle":"a\\u0000b"}' }), 'person_data[jobtitle]');
    expect420(await admin.put('/api/configitems/cors.origins').type('form').send({ value: '["\\u0000"]' }), 'value[0]');
  });

  it('a NUL in a multipart field or file name is a 420; a bad file id in the download path too', async () => {
    const upload = await admin.post('/api/files').field('filetitle', 'a\u0000b').attach('file', Buffer.from('x'), 'x.txt');
    expect420(upload, 'filetitle');
    expect420(await admin.post('/api/files').attach('file', Buffer.from('x'), 'x\u0000.txt'));
    for (const bad of ['%00', '3000000000', '1e400']) expect420(await admin.get(`/api/files/${bad}/content`), 'file_id');
  });

  it('a lone surrogate is a 420 (jsonb refuses it, text would mangle it)', async () => {
    expect420(await admin.put('/api/persons/ola').send({ person_data: { jobtitle: 'a\ud800b' } }), 'person_data[jobtitle]');
  });

  it('integers beyond what their column holds are a 420', async () => {
    expect420(await admin.get('/api/competences?category_ids=3000000000'), 'category_ids[0]');
    expect420(await admin.get('/api/events?offset=100000000000000000000'), 'offset');
    expect((await admin.get(`/api/events?offset=${'9'.repeat(400)}`)).body.message).toMatch(/out of range/);
    expect420(await admin.get('/api/organisations?parent_id=99999999999'), 'parent_id');
    expect420(await admin.get('/api/locations?minimum_capacity=99999999999'), 'minimum_capacity');
    expect420(await admin.get('/api/persons?organisation_id=-1'), 'organisation_id');
  });

  it('1e400, NaN, Infinity, -0x1 and empty strings are not numbers', async () => {
    for (const v of ['1e400', 'NaN', 'Infinity', '-0x1', '1.5', '%20']) expect420(await admin.get(`/api/events?offset=${v}`), 'offset');
    expect420(await admin.get('/api/events?offset='), 'offset');
    expect420(await admin.get('/api/events').send({ offset: 1e300 }), 'offset');
    expect420(await admin.get('/api/events').set('Content-Type', 'application/json').send('{"offset":1e400}'), 'offset');
  });

  it('lists hold at most 1,000 values', async () => {
    const ids = Array.from({ length: 1001 }, (_, i) => i + 1).join(',');
    expect420(await admin.get(`/api/competences?category_ids=${ids}`), 'category_ids');
  });

  it('parameters nested deeper than allowed are refused, not flattened', async () => {
    expect420(await admin.get('/api/competences?a[b][c][d][e][f][g]=1'));
    const deepForm = `x${'[a]'.repeat(40)}=1`;
    expect420(await admin.put('/api/persons/ola').type('form').send(deepForm));
    let deep: unknown = 1;
    for (let i = 0; i < 40; i++) deep = { a: deep };
    expect420(await admin.put('/api/persons/ola').send({ person_data: deep }));
  });

  it('survey data nested deeper than 10 item levels is a 420, however deep', async () => {
    const n = 20_000;
    const data = `{"items":${'[{"competence_id":1,"children":'.repeat(n)}[]${'}]'.repeat(n)}}`;
    const res = await admin.post('/api/surveyanswer').type('form').send({ competence_id: 1, data });
    expect(res.status).toBeLessThan(500);
    expect(res.body.valid).toBe(false);
    let eleven: unknown[] = [{ competence_id: 1 }];
    for (let i = 0; i < 11; i++) eleven = [{ competence_id: 1, children: eleven }];
    expect420(await admin.post('/api/surveyanswer').send({ competence_id: 1, data: JSON.stringify({ items: eleven }) }), 'data');
    const huge = await admin.post('/api/surveyanswer').send({ competence_id: 1, data: { items: [{ competence_id: 1, value: 'x'.repeat(1_100_000) }] } });
    expect(huge.status).toBe(413);
    expect(huge.body).toMatchObject({ valid: false, errorcode: 413 });
  });

  it('a bad percent-encoding in the path is a 420, also outside /api', async () => {
    expect420(await admin.get('/api/persons/%E0%A4%A'));
    const res = await request(t.app).get('/platform/tenants/%00').set('Authorization', 'Bearer x');
    expect(res.status).toBeLessThan(500);
  });

  it('the operator API refuses NUL in a path parameter and integers its columns cannot hold in a document', async () => {
    const op = operator(t, OPERATOR_TOKEN);
    expect420(await op.get('/platform/tenants/a%00b'), 'slug');
    const doc = readDemoDocument('acme');
    doc.tenant = { ...doc.tenant, slug: `big-${Date.now()}`, hosts: [`big-${Date.now()}.test`] };
    doc.locations[0].capacity = 3_000_000_000;
    const res = await op.post('/platform/tenants/import').send(doc);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body).toMatchObject({ valid: false, errorcode: 420 });
  });

  it('a limit above 100 is served as 100 and the message says so; 0, negative and text stay 420', async () => {
    const res = await admin.get('/api/competences?limit=500');
    expect(res.status).toBe(200);
    expect(res.body.message).toContain('limit 500 is above the maximum 100; served 100');
    for (const v of ['0', '-5', 'abc']) expect420(await admin.get(`/api/competences?limit=${v}`), 'limit');
  });
});
