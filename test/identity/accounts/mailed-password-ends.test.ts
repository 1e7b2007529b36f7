import { describe, expect, it } from 'vitest';
import { client } from '../../support/test-app';
import { ACME_PASSWORDS, asAcme, loginCookie } from '../../support/login';
import { useMailTestbed, waitFor } from '../../messaging/messages/delivery-peers';
import { openTenantScope } from '../../../src/platform/tenant-scope/request-scope';
import { TenantResolver } from '../../../src/platform/tenant-scope/tenant-resolver';
import { TENANT_DB } from '../../../src/platform/tokens';
import { PendingPasswords, PersonCredentials } from '../../../src/people';
import { VOID_PASSWORD_MAIL } from '../../../src/messaging/messages/delivery.service';

/*
 * Credentials that end (issue 40, item 3): a mailed password that was not used yet stops working when
 * the password, e-mail or mobile changes, and never replaces a password set after it.
 */
const bed = useMailTestbed();

const login = (user: string, password: string) => client(bed.t, bed.acme.host).post('/api/login').send({ user_name: user, password, login: 1 });
const mailsTo = (address: string) => bed.smtp.mails.filter((m) => m.rcptTo.includes(address));
const passwordOf = (body: string) => /Password: (\S+)/.exec(body)![1];

/** Asks for a password mail and answers the password it carries. */
async function mailedPassword(user: string, address: string): Promise<string> {
  const before = mailsTo(address).length;
  await client(bed.t, bed.acme.host).post('/api/forgot_password').send({ identification: user });
  const mail = await waitFor(`password mail to ${address}`, () => mailsTo(address)[before]);
  return passwordOf(mail.body);
}

async function tenantScope() {
  const tenant = await bed.t.container.resolve(TenantResolver).byTenantId(bed.acme.tenantId);
  return openTenantScope(bed.t.container, tenant!);
}

describe('a mailed password ends when the credentials change', () => {
  it('refused after the person sets a new password themself, and the newer password is kept (never replaced)', async () => {
    // nils is logged in (with the old password), someone asks for a password mail, then nils sets a new password
    const nils = client(bed.t, bed.acme.host, await loginCookie(bed.t, bed.acme.host, 'nils', ACME_PASSWORDS.nils));
    const mailed = await mailedPassword('nils', 'nils@acme.example');
    const changed = await nils
      .put('/api/persons/nils')
      .send({ person_data: { password: 'Nils-Newer-Pass-2' }, old_password: ACME_PASSWORDS.nils, password_match: 'Nils-Newer-Pass-2' });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect((await login('nils', mailed)).body.errorcode).toBe(401);
    const newer = await login('nils', 'Nils-Newer-Pass-2');
    expect(newer.status).toBe(200);
    expect(newer.body.login[0].must_change_password).toBe(false);
  });

  it('refused after a manager changes the e-mail the mail went to', async () => {
    const mailed = await mailedPassword('siri', 'siri@acme.example');
    const kari = await asAcme(bed.t, bed.acme.host, 'kari');
    expect((await kari.put('/api/persons/siri').send({ person_data: { email: 'siri.new@acme.example' } })).status).toBe(200);
    expect((await login('siri', mailed)).body.errorcode).toBe(401);
    expect((await login('siri', ACME_PASSWORDS.siri)).status).toBe(200);
  });

  it('refused after a manager changes the mobile (the person has e-mail and mobile)', async () => {
    const mailed = await mailedPassword('ola', 'ola@acme.example');
    const kari = await asAcme(bed.t, bed.acme.host, 'kari');
    expect((await kari.put('/api/persons/ola').send({ person_data: { mobile: '+4790000099' } })).status).toBe(200);
    expect((await login('ola', mailed)).body.errorcode).toBe(401);
  });

  it('unchanged credentials leave it working (a profile change is no credential change)', async () => {
    const mailed = await mailedPassword('expired', 'eva@acme.example');
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    expect((await admin.put('/api/persons/expired').send({ person_data: { jobtitle: 'Clerk', email: 'eva@acme.example' } })).status).toBe(200);
    const res = await login('expired', mailed);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.login[0].must_change_password).toBe(true);
  });

  it('a mail asked for before a password change and sent after it carries no password: the delivery fails as void', async () => {
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    // the SMTP server refuses the address for now: the mail waits for a retry
    bed.smtp.refuse.set('per.mail@acme.example', 451);
    expect((await admin.put('/api/persons/per').send({ person_data: { email: 'per.mail@acme.example' } })).status).toBe(200);
    await client(bed.t, bed.acme.host).post('/api/forgot_password').send({ identification: 'per' });
    const messageId = await waitFor('the password mail', async () => {
      const list = (await admin.get('/api/messages?user_name=per')).body.messages ?? [];
      return list.find((m: any) => m.title === 'Your new password' && m.deliveries.some((d: any) => d.address === 'per.mail@acme.example'))?.message_id;
    });
    await waitFor('a refused attempt', async () => (await admin.get(`/api/messages/${messageId}`)).body.messages[0].deliveries[0].attempts > 0);
    // the password is set by the manager meanwhile; then the server takes mail again
    expect((await admin.put('/api/persons/per').send({ person_data: { password: 'Per-Set-By-Admin-2' } })).status).toBe(200);
    bed.smtp.refuse.delete('per.mail@acme.example');
    const d = await waitFor('the void delivery', async () => {
      const row = (await admin.get(`/api/messages/${messageId}`)).body.messages[0].deliveries[0];
      return row.state === 'failed' ? row : null;
    });
    expect(d.reason).toBe(VOID_PASSWORD_MAIL);
    // (the notice of the password change goes there; no mail carries a password)
    expect(mailsTo('per.mail@acme.example').filter((m) => /Password: /.test(m.body))).toHaveLength(0);
    const res = await login('per', 'Per-Set-By-Admin-2');
    expect(res.status).toBe(200);
  });

  it('a login that read the pending password just before a password change does not replace the newer password', async () => {
    const scope = await tenantScope();
    const db = scope.resolve(TENANT_DB);
    const pending = scope.resolve(PendingPasswords);
    const kari = await db.table('persons').where({ user_name: 'kari' }).first('id');
    const mailed = (await pending.issue(kari.id, 424242, new Date()))!;
    const row = (await scope.resolve(PersonCredentials).forLogin('kari'))!;
    const hash = (await pending.matches(row, mailed))!;
    expect(hash).toBeTruthy();
    // the password changes between the login's read and its promotion
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    expect((await admin.put('/api/persons/kari').send({ person_data: { password: 'Kari-Newest-Pass-3' } })).status).toBe(200);
    expect(await pending.promote(kari.id, hash)).toBe(false);
    expect((await login('kari', 'Kari-Newest-Pass-3')).status).toBe(200);
    // and a mail asked for before that change gets no password at all
    expect(await pending.issue(kari.id, 424243, new Date(Date.now() - 60_000))).toBeNull();
  });
});
