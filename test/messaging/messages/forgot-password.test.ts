import { describe, expect, it } from 'vitest';
import { client } from '../../support/test-app';
import { ACME_PASSWORDS } from '../../support/login';
import { useMailTestbed, waitFor } from './delivery-peers';
import { identificationBucket } from '../../../src/people';

const bed = useMailTestbed();

const login = (user: string, password: string) => client(bed.t, bed.acme.host).post('/api/login').send({ user_name: user, password, login: 1 });

describe('POST /api/forgot_password', () => {
  it('answers an unknown and a known identification identically', async () => {
    const anon = client(bed.t, bed.acme.host);
    const unknown = await anon.post('/api/forgot_password').send({ identification: 'nobody@nowhere.example' });
    const known = await anon.post('/api/forgot_password').send({ identification: 'siri@acme.example' });
    expect(unknown.status).toBe(known.status);
    expect(unknown.body).toEqual(known.body);
    expect(known.body).toEqual({ valid: true, message: expect.any(String) });
  });

  it('mails a new password; the old one keeps working until the new one is used, which then asks for a new password (418)', async () => {
    const anon = client(bed.t, bed.acme.host);
    await anon.post('/api/forgot_password').send({ identification: 'nils' });
    const mail = await waitFor('password mail to nils', () => bed.smtp.mails.find((m) => m.rcptTo.includes('nils@acme.example')));
    expect(mail.headers.from).toBe('Acme Training <training@acme.example>');
    const password = /Password: (\S+)/.exec(mail.body)![1];
    expect(password).not.toBe('{password}');

    // A stranger's request locks nobody out: the old password still logs in.
    const old = await login('nils', ACME_PASSWORDS.nils);
    expect(old.body.logins?.[0]?.must_change_password ?? old.body.login[0].must_change_password).toBe(false);
    // Using the old password discarded the mailed one.
    expect((await login('nils', password)).body.errorcode).toBe(401);

    await anon.post('/api/forgot_password').send({ identification: 'nils@acme.example' });
    const second = await waitFor('second mail', () => bed.smtp.mails.filter((m) => m.rcptTo.includes('nils@acme.example'))[1]);
    const fresh = /Password: (\S+)/.exec(second.body)![1];
    const res = await login('nils', fresh);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.login[0].must_change_password).toBe(true);
    const cookie = (res.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
    expect((await client(bed.t, bed.acme.host, cookie).get('/api/messages')).body.errorcode).toBe(418);
    // The mailed password is now the password; the old one is gone.
    expect((await login('nils', ACME_PASSWORDS.nils)).body.errorcode).toBe(401);
  });

  it('the stored message never holds the password', async () => {
    const admin = client(bed.t, bed.acme.host, (await login('admin', ACME_PASSWORDS.admin)).headers['set-cookie'][0].split(';')[0]);
    const list = await admin.get('/api/messages?user_name=nils');
    const pw = list.body.messages.filter((m: any) => m.title === 'Your new password');
    expect(pw.length).toBeGreaterThan(0);
    for (const m of pw) expect(m.text).toContain('Password: ********');
  });

  it('is rate limited per identification with a 429 that looks the same for unknown identifications', async () => {
    const anon = client(bed.t, bed.acme.host);
    const codes: number[] = [];
    for (let i = 0; i < 7; i++) codes.push((await anon.post('/api/forgot_password').send({ identification: 'ghost@nowhere.example' })).status);
    expect(codes.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(codes.slice(5)).toEqual([429, 429]);
  });

  it('counts one mobile number however it is spaced or dashed as one identification, with Retry-After on the 429', async () => {
    const anon = client(bed.t, bed.acme.host);
    const variants = ['+47 955 00 111', '+4795500111', '+47-955-00-111', '+47 95500111', ' +47955 00111 ', '+47 955-00-111'];
    const answers = [];
    for (const identification of variants) answers.push(await anon.post('/api/forgot_password').send({ identification }));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(Number(answers[5].headers['retry-after'])).toBeGreaterThan(0);
    expect(identificationBucket('Ghost@NoWhere.example')).toBe(identificationBucket('ghost@nowhere.example'));
  });

  it('a missing identification is a 419', async () => {
    expect((await client(bed.t, bed.acme.host).post('/api/forgot_password').send({})).body.errorcode).toBe(419);
  });
});
