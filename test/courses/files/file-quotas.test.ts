import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { asAcme } from '../../support/login';

let t: TestApp;
let acme: DemoTenant;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'file-quotas-'));
  t = await createTestApp({ DATA_DIR: dataDir, UPLOAD_MAX_BYTES: '10000' });
  acme = await importDemoTenant(t, 'acme');
});
afterAll(async () => t?.close());

const stored = () => {
  try {
    return readdirSync(join(dataDir, 'files', acme.schema)).length;
  } catch {
    return 0;
  }
};

type Client = Awaited<ReturnType<typeof asAcme>>;
const upload = (who: Client, bytes: number, name = 'notes.txt', type = 'text/plain', forUser?: string) => {
  const req = who.post('/api/files');
  if (forUser) req.field('user_name', forUser);
  return req.attach('file', Buffer.alloc(bytes, 97), { filename: name, contentType: type });
};

async function setItem(admin: Client, id: string, value: unknown) {
  const res = await admin.put(`/api/configitems/${id}`).send({ value });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

describe('upload quotas (issue 40 item 6)', () => {
  it('the four quotas are config items with defaults, in the Courses section of the admin console', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const res = await admin.get('/api/configitems/definitions');
    expect(res.status).toBe(200);
    const defs = Object.fromEntries(res.body.configitems.map((d: any) => [d.config_item_id, d]));
    expect(defs['files.max_per_person']).toMatchObject({ default: 200, section: 'courses' });
    expect(defs['files.max_bytes_per_person']).toMatchObject({ default: 200 * 1024 * 1024, section: 'courses' });
    expect(defs['files.max_per_tenant']).toMatchObject({ default: 50_000, section: 'courses' });
    expect(defs['files.max_bytes_per_tenant']).toMatchObject({ default: 10 * 1024 ** 3, section: 'courses' });
  });

  it('past the per-person count or bytes: 413 in the envelope naming the item, and no bytes left behind', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const ola = await asAcme(t, acme.host, 'ola');
    await setItem(admin, 'files.max_per_person', 2);
    await setItem(admin, 'files.max_bytes_per_person', 5000);
    expect((await upload(ola, 1000)).status).toBe(200);
    expect((await upload(ola, 1000)).status).toBe(200);
    const before = stored();
    const third = await upload(ola, 10);
    expect(third.status).toBe(413);
    expect(third.body).toMatchObject({ valid: false, errorcode: 413, quota: 'files.max_per_person', limit: 2 });
    expect(third.body.message).toMatch(/config item files\.max_per_person/);
    expect(stored()).toBe(before);

    await setItem(admin, 'files.max_per_person', 100);
    const big = await upload(ola, 3001);
    expect(big.status).toBe(413);
    expect(big.body).toMatchObject({ errorcode: 413, quota: 'files.max_bytes_per_person', limit: 5000 });
    expect(stored()).toBe(before);
    expect((await upload(ola, 3000)).status).toBe(200);
    // another person has a quota of their own
    const kari = await asAcme(t, acme.host, 'kari');
    expect((await upload(kari, 4000)).status).toBe(200);
    // an upload by a superuser for ola counts against ola
    expect((await upload(admin, 1, 'x.txt', 'text/plain', 'ola')).body).toMatchObject({ errorcode: 413, quota: 'files.max_bytes_per_person' });
  });

  it('past the per-tenant count or bytes: 413 naming the item', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const per = await asAcme(t, acme.host, 'per');
    await setItem(admin, 'files.max_bytes_per_tenant', 9500);
    const over = await upload(per, 1000);
    expect(over.body).toMatchObject({ errorcode: 413, quota: 'files.max_bytes_per_tenant', limit: 9500 });
    await setItem(admin, 'files.max_bytes_per_tenant', 1_000_000);
    await setItem(admin, 'files.max_per_tenant', 4);
    const count = await upload(per, 1);
    expect(count.body).toMatchObject({ errorcode: 413, quota: 'files.max_per_tenant', limit: 4 });
    await setItem(admin, 'files.max_per_tenant', 50_000);
    expect((await upload(per, 1)).status).toBe(200);
  });
});

describe('downloads (issue 40 item 6)', () => {
  it('are attachments with nosniff and an allow-listed type; anything else is application/octet-stream', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    await setItem(admin, 'files.max_per_person', 100);
    await setItem(admin, 'files.max_bytes_per_person', 1_000_000);
    const cases: [string, string, string][] = [
      ['page.html', 'text/html', 'application/octet-stream'],
      ['logo.svg', 'image/svg+xml', 'application/octet-stream'],
      ['script.js', 'application/javascript', 'application/octet-stream'],
      ['odd.bin', 'Text/HTML; charset=utf-8', 'application/octet-stream'],
      ['cert.pdf', 'application/pdf', 'application/pdf'],
      ['photo.png', 'image/png', 'image/png'],
      ['notes.txt', 'text/plain; charset=utf-8', 'text/plain'],
    ];
    for (const [name, type, sent] of cases) {
      const up = await upload(admin, 20, name, type);
      expect(up.status, JSON.stringify(up.body)).toBe(200);
      const got = await admin.get(`/api/files/${up.body.files[0].file_id}/content`);
      expect(got.status).toBe(200);
      expect(got.headers['content-type'], name).toBe(sent);
      expect(got.headers['x-content-type-options']).toBe('nosniff');
      expect(got.headers['content-disposition']).toBe(`attachment; filename*=UTF-8''${encodeURIComponent(name)}`);
    }
  });
});
