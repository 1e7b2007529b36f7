import { describe, expect, it } from 'vitest';
import { useMailTestbed, waitFor } from '../../messaging/messages/delivery-peers';
import { ACME_PASSWORDS, asAcme } from '../../support/login';

const bed = useMailTestbed();

describe('changing your own e-mail or mobile needs your password and tells the old address', () => {
  it('ola changing her own e-mail: 419 without old_password, 420 with a wrong one, nothing changes', async () => {
    const ola = await asAcme(bed.t, bed.acme.host, 'ola');
    const missing = await ola.put('/api/persons/ola').send({ person_data: { email: 'thief@evil.example' } });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ valid: false, errorcode: 419, parameter: 'old_password' });
    const wrong = await ola.put('/api/persons/ola').send({ person_data: { email: 'thief@evil.example' }, old_password: 'not-it' });
    expect(wrong.body).toMatchObject({ valid: false, errorcode: 420, parameter: 'old_password' });
    const mobile = await ola.put('/api/persons/ola').send({ person_data: { mobile: '+4799911111' } });
    expect(mobile.body).toMatchObject({ errorcode: 419, parameter: 'old_password' });
    expect((await ola.get('/api/person')).body.person[0]).toMatchObject({ email: 'ola@acme.example', mobile: '+4790000012' });
    // other fields, and sending the unchanged address again, need no password
    expect((await ola.put('/api/persons/ola').send({ person_data: { city: 'Bergen', email: 'ola@acme.example' } })).status).toBe(200);
  });

  it('with the right old_password the e-mail changes and ola@acme.example receives a notice that names neither new value', async () => {
    const ola = await asAcme(bed.t, bed.acme.host, 'ola');
    const res = await ola.put('/api/persons/ola').send({ person_data: { email: 'ola.hansen@acme.example' }, old_password: ACME_PASSWORDS.ola });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.persons[0].email).toBe('ola.hansen@acme.example');
    const notice = await waitFor('notice to the old address', () =>
      bed.smtp.mails.find((m) => m.rcptTo.includes('ola@acme.example') && /e-mail address of your account was changed/.test(m.headers.subject ?? '')),
    );
    expect(notice.rcptTo).toEqual(['ola@acme.example']);
    expect(notice.body).toContain('If this was not you');
    expect(notice.body).not.toContain('ola.hansen@acme.example');
  });

  it('a password change is told to the e-mail address too, with the e-mail change of the same request to the old one', async () => {
    const siri = await asAcme(bed.t, bed.acme.host, 'siri');
    const res = await siri.put('/api/persons/siri').send({
      person_data: { password: 'Siri-New-Pass-2', email: 'siri.berg@acme.example' },
      old_password: ACME_PASSWORDS.siri,
      password_match: 'Siri-New-Pass-2',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const notice = await waitFor('notice to siri', () => bed.smtp.mails.find((m) => m.rcptTo.includes('siri@acme.example')));
    expect(notice.headers.subject).toBe('The password and e-mail address of your account were changed');
    expect(notice.body).not.toContain('Siri-New-Pass-2');
  });

  it('a manager changes an e-mail without old_password; the old address is told too', async () => {
    const kari = await asAcme(bed.t, bed.acme.host, 'kari');
    const res = await kari.put('/api/persons/nils').send({ person_data: { email: 'nils.dahl@acme.example' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const notice = await waitFor('notice to nils', () => bed.smtp.mails.find((m) => m.rcptTo.includes('nils@acme.example')));
    expect(notice.body).toContain('changed by kari');
  });
});
