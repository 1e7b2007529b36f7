import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, importDemoTenant, type TestApp, type DemoTenant } from '../../support/test-app';
import { asAcme } from '../../support/login';
import { KNEX } from '../../../src/platform/tokens';

/**
 * Issue 40 item 8: audit entries belong to a person by id, not by the user name they were written
 * under; the erasure reaches every copy of what named the person (former user names, webhook event
 * bodies, every pending password column).
 */
let t: TestApp;
let acme: DemoTenant;
type Client = Awaited<ReturnType<typeof asAcme>>;
let admin: Client;

beforeAll(async () => {
  // a webhook endpoint on loopback (nothing is delivered: no workers run here)
  t = await createTestApp({ WEBHOOKS_ALLOW_PRIVATE_TARGETS: '1' });
  acme = await importDemoTenant(t, 'acme');
  admin = await asAcme(t, acme.host, 'admin');
});
afterAll(async () => t?.close());

const db = () => t.container.resolve(KNEX).withSchema(acme.schema);
const idOf = async (userName: string) => (await db().table('persons').where('user_name', userName).first('id')).id as number;
const ok = (res: { status: number; body: unknown }) => expect(res.status, JSON.stringify(res.body)).toBe(200);

describe('GET /api/persons/[user_name]/export: audit entries by person id', () => {
  it("a person who takes a freed user name gets none of the former holder's entries; the former holder keeps theirs", async () => {
    // ola acts (logs in) and is audited under "ola"
    await asAcme(t, acme.host, 'ola');
    const olaId = await idOf('ola');
    const olaEntries = (await db().table('audit_log').where('actor', 'ola').orWhere('subject', 'ola').select('audit_id')).map((r: any) => Number(r.audit_id));
    expect(olaEntries.length).toBeGreaterThan(0);

    // ola becomes ola-renamed, freeing "ola"; siri takes "ola"
    ok(await admin.put('/api/persons/ola').send({ person_data: { user_name: 'ola-renamed' } }));
    ok(await admin.put('/api/persons/siri').send({ person_data: { user_name: 'ola' } }));
    const siriId = await idOf('ola');
    expect(siriId).not.toBe(olaId);

    const siriExport = await admin.get('/api/persons/ola/export');
    ok(siriExport);
    const siriLog: any[] = siriExport.body.export[0].auditlog;
    expect(siriLog.filter((e) => olaEntries.includes(e.audit_id))).toEqual([]);

    const olaExport = await admin.get('/api/persons/ola-renamed/export');
    ok(olaExport);
    const olaLog = olaExport.body.export[0].auditlog.map((e: any) => e.audit_id);
    expect(olaLog).toEqual(expect.arrayContaining(olaEntries));
  });
});

describe('POST /api/persons/[user_name]/erase: nothing left behind', () => {
  let nilsId = 0;
  let pendingColumns: string[] = [];
  const bodies = async () => (await db().table('webhook_events').where('type', 'person.updated').select('body')).map((r: any) => r.body as string).join('\n');

  beforeAll(async () => {
    ok(await admin.post('/api/webhooks').send({ url: 'http://127.0.0.1:9/hook', events: ['person.updated'], description: 'erasure test' }));
    // nils acts under "nils", gets a new e-mail (a person.updated event naming him), then is renamed
    await asAcme(t, acme.host, 'nils');
    nilsId = await idOf('nils');
    ok(await admin.put('/api/persons/nils').send({ person_data: { email: 'nils.private@acme.example', mobile: '+4799887766' } }));
    ok(await admin.put('/api/persons/nils').send({ person_data: { user_name: 'nils-new' } }));
    expect(await bodies()).toContain('nils.private@acme.example');
    expect(await db().table('audit_log').where('actor', 'nils').orWhere('subject', 'nils')).not.toEqual([]);

    // a mailed password not used yet: every pending_password* column holds something
    pendingColumns = (
      await t.container
        .resolve(KNEX)
        .raw(
          "select column_name from information_schema.columns where table_schema = ? and table_name = 'persons' and column_name like 'pending\\_password%'",
          [acme.schema],
        )
    ).rows.map((r: any) => r.column_name);
    expect(pendingColumns.length).toBeGreaterThanOrEqual(4);
    await db()
      .table('persons')
      .where('id', nilsId)
      .update({
        pending_password_hash: '$argon2id$pending',
        pending_password_expires_at: new Date(Date.now() + 3_600_000),
        pending_password_delivery_id: 1,
        pending_password_earlier: ['$argon2id$earlier'],
      });
    const filled = await db().table('persons').where('id', nilsId).first(pendingColumns);
    for (const c of pendingColumns) expect(filled[c], c).not.toBeNull();

    ok(await admin.post('/api/persons/nils-new/erase').send({ confirm: 'nils-new' }));
  });

  it('rewrites the audit entries under former user names too', async () => {
    expect(await db().table('audit_log').whereIn('actor', ['nils', 'nils-new']).orWhereIn('subject', ['nils', 'nils-new'])).toEqual([]);
    expect(await db().table('audit_log').where('actor', `erased-${nilsId}`).orWhere('subject', `erased-${nilsId}`)).not.toEqual([]);
  });

  it('rewrites the webhook event bodies naming the person (user names, e-mail, mobile)', async () => {
    const after = await bodies();
    for (const v of ['nils.private@acme.example', '+4799887766', '"nils"', '"nils-new"']) expect(after).not.toContain(v);
    expect(after).toContain(`erased-${nilsId}`);
  });

  it('blanks every pending password column', async () => {
    const row = await db().table('persons').where('id', nilsId).first(pendingColumns);
    for (const c of pendingColumns) expect(row[c], c).toBeNull();
  });
});
