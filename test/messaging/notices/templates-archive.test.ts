import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { asAcme } from '../../support/login';
import { OPERATOR_TOKEN, operator, readArchive, tableRows } from '../../tenancy/tenants/archive-support';

let t: TestApp;
let acme: DemoTenant;

beforeAll(async () => {
  t = await createTestApp({ PLATFORM_ADMIN_TOKEN: OPERATOR_TOKEN });
  acme = await importDemoTenant(t, 'acme');
});
afterAll(async () => {
  await t?.close();
});

describe('message templates in the tenant archive (issue 39 item 4)', () => {
  it('an override survives export and import under another slug, and the restored tenant lists it', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const data = {
      language: 'nb',
      subject: 'Velkommen til {{ tenant_name }}',
      text: 'Hei {{ user_name }}\n\nPassord: {{ password }}',
      html: '<p>Hei <b>{{ user_name }}</b>: {{ password }}</p>',
    };
    expect((await admin.put('/api/messagetemplates/login_created').send({ messagetemplate_data: data })).status).toBe(200);

    const exported = await operator(t).bytes(`/platform/tenants/${acme.slug}/export`);
    expect(exported.status).toBe(200);
    const rows = tableRows(await readArchive(exported.body), 'message_templates');
    expect(rows).toEqual([
      expect.objectContaining({ type: 'login_created', language: 'nb', subject: data.subject, text: data.text, html: data.html, updated_by: 'admin' }),
    ]);

    const slug = `tpl${Date.now()}`;
    const host = `${slug}.test`;
    const imported = await operator(t).post(`/platform/tenants/import?slug=${slug}&host=${host}`).set('Content-Type', 'application/gzip').send(exported.body);
    expect(imported.status, JSON.stringify(imported.body)).toBe(201);
    const again = tableRows(await readArchive((await operator(t).bytes(`/platform/tenants/${slug}/export`)).body), 'message_templates');
    expect(again).toEqual(rows);
    const restored = await (await asAcme(t, host, 'admin')).get('/api/messagetemplates');
    expect(restored.body.messagetemplates.find((x: any) => x.type === 'login_created').overrides).toEqual([
      expect.objectContaining({ language: 'nb', subject: data.subject }),
    ]);
  });
});
