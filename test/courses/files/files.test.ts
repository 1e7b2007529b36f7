import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { asAcme, loginCookie, GLOBEX_PASSWORDS } from '../../support/login';
import { eventIdsByTitle } from '../events/events-support';

let t: TestApp;
let acme: DemoTenant;
let globex: DemoTenant;
let dataDir: string;
let ev: Record<string, number>;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'files-'));
  t = await createTestApp({ DATA_DIR: dataDir, UPLOAD_MAX_BYTES: '1000' });
  [acme, globex] = await Promise.all([importDemoTenant(t, 'acme'), importDemoTenant(t, 'globex')]);
  ev = await eventIdsByTitle(t, acme);
});
afterAll(async () => t?.close());

describe('POST /api/files', () => {
  it('ola uploads a file for the December HSE course; he and the instructor kari see it, per does not', async () => {
    const ola = await asAcme(t, acme.host, 'ola');
    const up = await ola
      .post('/api/files')
      .field('filetitle', 'My certificate')
      .field('ceid', String(ev['HSE basic course, December']))
      .attach('file', Buffer.from('hello certificate'), { filename: 'cert.pdf', contentType: 'application/pdf' });
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    const f = up.body.files[0];
    expect(f).toMatchObject({
      user_name: 'ola',
      filetitle: 'My certificate',
      file_name: 'cert.pdf',
      mime_type: 'application/pdf',
      size: 17,
      event_id: ev['HSE basic course, December'],
    });
    expect(readdirSync(join(dataDir, 'files', acme.schema))).toHaveLength(1);

    const kari = await asAcme(t, acme.host, 'kari');
    const got = await kari.get(`/api/files/${f.file_id}/content`);
    expect(got.status).toBe(200);
    expect(got.headers['content-type']).toContain('application/pdf');
    expect(got.headers['content-disposition']).toContain('cert.pdf');
    expect(Buffer.from(got.body).toString()).toBe('hello certificate');
    expect((await kari.get(`/api/files/${f.file_id}`)).body.files[0].file_id).toBe(f.file_id);

    const per = await asAcme(t, acme.host, 'per');
    expect((await per.get(`/api/files/${f.file_id}/content`)).status).toBe(403);
    expect((await per.get(`/api/files/${f.file_id}`)).status).toBe(403);
    expect((await client(t, acme.host).get(`/api/files/${f.file_id}/content`)).status).toBe(401);
    const globexAdmin = client(t, globex.host, await loginCookie(t, globex.host, 'admin', GLOBEX_PASSWORDS.admin));
    expect((await globexAdmin.get(`/api/files/${f.file_id}/content`)).status).toBe(404);
    expect((await globexAdmin.get(`/api/files/${f.file_id}`)).status).toBe(404);
  });

  it('a file beyond UPLOAD_MAX_BYTES is refused with 413 in the envelope', async () => {
    const ola = await asAcme(t, acme.host, 'ola');
    const res = await ola.post('/api/files').attach('file', Buffer.alloc(1001, 1), 'big.bin');
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ valid: false, errorcode: 413 });
    expect(res.body.message).toContain('1000 bytes');
  });

  it('needs a login, a file, and a manager or superuser to upload for someone else', async () => {
    const anon = await client(t, acme.host).post('/api/files').attach('file', Buffer.from('x'), 'x.txt');
    expect(anon.status).toBe(401);
    const ola = await asAcme(t, acme.host, 'ola');
    const none = await ola.post('/api/files').field('filetitle', 'nothing');
    expect(none.body).toMatchObject({ errorcode: 419 });
    expect(none.body.message).toContain('file');
    const forSiri = await ola.post('/api/files').field('user_name', 'siri').attach('file', Buffer.from('x'), 'x.txt');
    expect(forSiri.status).toBe(403);
    const kari = await asAcme(t, acme.host, 'kari');
    const byManager = await kari.post('/api/files').field('user_name', 'siri').attach('file', Buffer.from('x'), 'x.txt');
    expect(byManager.body.files[0].user_name).toBe('siri');
    const badEvent = await ola.post('/api/files').field('ceid', '999999').attach('file', Buffer.from('x'), 'x.txt');
    expect(badEvent.status).toBe(404);
    expect(existsSync(join(dataDir, 'files', globex.schema))).toBe(false);
  });
});
