import { writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { simpleParser, type ParsedMail } from 'mailparser';
import { useCalendarBed, createEvent, addPersons, daysAhead, type CalendarBed } from '../../courses/authoring/authoring-support';
import { invite } from '../../courses/calendar/calendar-support';
import { idsByRef } from '../../people/persons/demo-refs';
import { setConfig, tenantDb } from '../../courses/events/events-support';
import { waitFor, type ReceivedMail } from '../messages/delivery-peers';
import { dayAfter, scanNow, scannerFor } from '../reminders/reminders-support';

const bed: CalendarBed = useCalendarBed({}, (doc) => {
  for (const n of ['norsk', 'utan', 'svensk'])
    doc.persons.push({ user_name: n, password: 'Notice-Pass-1x', email: `${n}@acme.example`, organisation: 'acme-hr' });
});
// the mail as received, kept for people to look at (.test-results is the run's output folder, like the console's screenshots)
const SAMPLE = join(process.cwd(), '.test-results', 'sign-on-mail-sample.eml');

/** The mails to `to` (MIME-parsed) whose subject matches, waited for until there are `n`. */
async function mailsTo(to: string, subject: RegExp, n = 1): Promise<{ raw: ReceivedMail; parsed: ParsedMail }[]> {
  return waitFor(`${n} mail(s) ${subject} to ${to}`, async () => {
    const all = await Promise.all(bed.smtp.mails.filter((m) => m.rcptTo.includes(to)).map(async (raw) => ({ raw, parsed: await simpleParser(raw.raw) })));
    const found = all.filter((m) => subject.test(m.parsed.subject ?? ''));
    return found.length >= n ? found : null;
  });
}

const nbDate = (d: string) =>
  new Intl.DateTimeFormat('nb', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${d}T00:00:00Z`));
const svDate = (d: string) =>
  new Intl.DateTimeFormat('sv', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${d}T00:00:00Z`));

async function remind(userNames: string[], competenceRef: string, days: number): Promise<string> {
  const admin = await bed.as('admin');
  const comps = await idsByRef(bed.t, bed.acme, 'competences');
  const validUntil = dayAfter(new Date(), days);
  for (const user_name of userNames) {
    const res = await admin
      .put(`/api/personcompetences/${comps[competenceRef]}`)
      .send({ user_name, date: dayAfter(new Date(), -300), valid_until: validUntil });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  await scanNow(scannerFor(bed.t.container, [bed.acme.tenantId]));
  return validUntil;
}

describe("notices in the recipient's language (issue 39 item 3)", () => {
  it("language=nb gets the Norwegian reminder with a Norwegian date; none gets the tenant's language (sv); both with an HTML part", async () => {
    const db = tenantDb(bed.t, bed.acme);
    await db.table('persons').where({ user_name: 'norsk' }).update({ language: 'nb-NO' });
    await setConfig(bed.t, bed.acme, 'tenant.language', 'sv');
    const validUntil = await remind(['norsk', 'utan'], 'fire-ecourse', 5);

    const [nb] = await mailsTo('norsk@acme.example', /^Påminnelse: /);
    expect(nb.parsed.subject).toBe(`Påminnelse: Fire safety e-learning er gyldig til ${nbDate(validUntil)}`);
    expect(nbDate(validUntil)).toMatch(/^\d{1,2}\. [a-zæøå]+ \d{4}$/);
    expect(nb.parsed.text).toContain(`Registreringen din av «Fire safety e-learning» er gyldig til ${nbDate(validUntil)} (5 dager igjen).`);
    expect(nb.parsed.html).toContain('<html lang="nb"');
    expect(nb.parsed.html).toContain('<main');
    expect(nb.raw.raw).toMatch(/multipart\/alternative/);

    const [sv] = await mailsTo('utan@acme.example', /^Påminnelse: /);
    expect(sv.parsed.subject).toBe(`Påminnelse: Fire safety e-learning är giltig till ${svDate(validUntil)}`);
    expect(sv.parsed.text).toContain('(5 dagar kvar)');
    expect(sv.parsed.html).toContain('<html lang="sv"');
    await setConfig(bed.t, bed.acme, 'tenant.language', 'en');
  });
});

describe("the tenant's words (issue 39 item 4)", () => {
  it('GET lists every notice type with variables, defaults per language and overrides; superusers only', async () => {
    const admin = await bed.as('admin');
    const res = await admin.get('/api/messagetemplates');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const reminder = res.body.messagetemplates.find((x: any) => x.type === 'expiry_reminder');
    expect(Object.keys(reminder.defaults).sort()).toEqual(['en', 'nb', 'sv']);
    expect(reminder.variables.map((v: any) => v.name)).toEqual(expect.arrayContaining(['competence_title', 'valid_until', 'days_left']));
    expect(res.body.messagetemplates).toHaveLength(10);
    expect((await (await bed.as('ola')).get('/api/messagetemplates')).status).toBe(403);
  });

  it('an override is previewed before saving and then used for its language only; audited; DELETE goes back', async () => {
    const admin = await bed.as('admin');
    const data = {
      language: 'sv',
      subject: 'Förnya {{ competence_title }}',
      text: 'Hej {{ user_name }}!\n\n{{ competence_title }} gäller till {{ valid_until | format_date }}.',
      html: '<p><strong>{{ competence_title }}</strong> &mdash; förnya!</p>',
    };
    const preview = await admin.post('/api/messagetemplates/expiry_reminder/preview').send({ messagetemplate_data: data });
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    expect(preview.body.messagetemplates[0]).toMatchObject({
      language: 'sv',
      subject: 'Förnya Forklift licence',
      text: 'Hej kari.nordmann!\n\nForklift licence gäller till 30 april 2026.',
    });
    expect(preview.body.messagetemplates[0].html).toContain('<strong>Forklift licence</strong>');
    // nothing saved by a preview
    expect((await admin.get('/api/messagetemplates')).body.messagetemplates.find((x: any) => x.type === 'expiry_reminder').overrides).toEqual([]);

    const put = await admin.put('/api/messagetemplates/expiry_reminder').send({ messagetemplate_data: data });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.messagetemplates[0]).toMatchObject({ language: 'sv', subject: data.subject, updated_by: 'admin' });
    // a stored override previews without texts given
    const stored = await admin.post('/api/messagetemplates/expiry_reminder/preview').send({ messagetemplate_data: { language: 'sv' } });
    expect(stored.body.messagetemplates[0].subject).toBe('Förnya Forklift licence');

    await tenantDb(bed.t, bed.acme).table('persons').where({ user_name: 'svensk' }).update({ language: 'sv-SE' });
    await remind(['norsk', 'svensk'], 'leadership-101', 6);
    const [sv] = await mailsTo('svensk@acme.example', /^Förnya Leadership 101$/);
    expect(sv.parsed.text).toMatch(/^Hej svensk!/);
    expect(sv.parsed.html).toContain('<strong>Leadership 101</strong>');
    // the Norwegian reader still gets the shipped Norwegian text
    const nb = await mailsTo('norsk@acme.example', /^Påminnelse: Leadership 101 /);
    expect(nb[0].parsed.text).toContain('6 dager igjen');

    const log = await admin.get('/api/auditlog?type=message_template.updated,message_template.deleted&limit=100');
    expect(log.status, JSON.stringify(log.body)).toBe(200);
    expect(log.body.auditlog.map((e: any) => [e.type, e.subject, e.actor])).toContainEqual(['message_template.updated', 'expiry_reminder', 'admin']);

    const del = await admin.delete('/api/messagetemplates/expiry_reminder?language=sv');
    expect(del.status, JSON.stringify(del.body)).toBe(200);
    expect((await admin.delete('/api/messagetemplates/expiry_reminder?language=sv')).status).toBe(404);
    const after = await admin.get('/api/auditlog?type=message_template.deleted&limit=10');
    expect(after.body.auditlog.map((e: any) => e.details?.language)).toContain('sv');
  });

  it('refuses file access, unknown variables, syntax errors, endless loops, a password mail without the password: 420 naming the field and line', async () => {
    const admin = await bed.as('admin');
    const put = (type: string, d: Record<string, unknown>) =>
      admin.put(`/api/messagetemplates/${type}`).send({ messagetemplate_data: { language: 'en', subject: 'S', ...d } });
    const preview = (type: string, d: Record<string, unknown>) =>
      admin.post(`/api/messagetemplates/${type}/preview`).send({ messagetemplate_data: { language: 'en', ...d } });

    const file = await put('sign_on', { text: "Hello\n{% include '/etc/passwd' %}" });
    expect(file.body.errorcode, JSON.stringify(file.body)).toBe(420);
    expect(file.body.message).toMatch(/messagetemplate_data\[text\].*file access is not allowed.*line 2/);
    const render = await preview('sign_on', { text: "{% render 'notices/locales/en.json' %}" });
    expect(render.body.errorcode).toBe(420);
    const unknown = await put('sign_on', { text: 'Dear {{ user_name }},\nyour {{ salary }} is ready' });
    expect(unknown.body.errorcode).toBe(420);
    expect(unknown.body.message).toMatch(/messagetemplate_data\[text\].*undefined variable: salary.*line 2/);
    const subject = await put('sign_on', { subject: 'Hi {{ nope', text: 'x' });
    expect(subject.body.errorcode).toBe(420);
    expect(subject.body.message).toMatch(/messagetemplate_data\[subject\].*line 1/);
    const html = await preview('sign_on', { html: '<p>ok</p>\n<p>{% if %}</p>' });
    expect(html.body.errorcode).toBe(420);
    expect(html.body.message).toMatch(/messagetemplate_data\[html\].*line 2/);
    const loop = await preview('sign_on', { text: '{% for i in (1..1000000000) %}{{ i }}{% endfor %}' });
    expect(loop.body.errorcode).toBe(420);
    expect(loop.body.message).toMatch(/limit/);
    const nested = await put('sign_on', {
      text: '{% for i in (1..3000) %}{% for j in (1..3000) %}{% for k in (1..3000) %}.{% endfor %}{% endfor %}{% endfor %}',
    });
    expect(nested.body.errorcode).toBe(420);
    const password = await put('password_reset', { text: 'Your new password is in another castle.' });
    expect(password.body.errorcode).toBe(420);
    expect(password.body.message).toMatch(/password/);
    expect((await put('no_such_notice', { text: 'x' })).body.errorcode).toBe(420);
    expect((await admin.put('/api/messagetemplates/sign_on').send({ messagetemplate_data: { language: 'en', subject: 'S' } })).body.errorcode).toBe(419);
    // nothing stored by any of them
    expect((await admin.get('/api/messagetemplates')).body.messagetemplates.flatMap((x: any) => x.overrides)).toEqual([]);
  });

  it('a stored template that fails at send time falls back to the shipped text', async () => {
    // written past the API's checks (a template saved before a limit was lowered): an endless loop
    await tenantDb(bed.t, bed.acme).table('message_templates').insert({
      type: 'expiry_reminder',
      language: 'nb',
      subject: 'Loop',
      text: '{% for i in (1..2000) %}{% for j in (1..2000) %}{% for k in (1..2000) %}.{% endfor %}{% endfor %}{% endfor %}',
    });
    await remind(['norsk'], 'fire-ecourse', 4);
    const mails = await mailsTo('norsk@acme.example', /^Påminnelse: Fire safety e-learning /, 2);
    expect(mails[1].parsed.text).toContain('(4 dager igjen)');
    await tenantDb(bed.t, bed.acme).table('message_templates').where({ language: 'nb' }).delete();
  });
});

describe('HTML and the calendar part together (issue 39 items 1 and 4)', () => {
  it("a sign-on mail is multipart: text, accessible HTML with the tenant's brand, and the calendar REQUEST with its .ics", async () => {
    await setConfig(bed.t, bed.acme, 'mail.brand_colour', '#0b5394');
    await setConfig(bed.t, bed.acme, 'mail.logo_url', 'https://acme.example/logo.png');
    const [admin, kari] = [await bed.as('admin'), await bed.as('kari')];
    await addPersons(bed, ['html1'], 'Operations North');
    const course = await bed.idOf('competences', { title: 'Calendar course' });
    const bergen = await bed.idOf('locations', { name: 'Bergen yard' });
    const event = await createEvent(kari, {
      competence_id: course,
      title: 'Mail sample course',
      startdate: daysAhead(400, 9),
      enddate: daysAhead(400, 15),
      location_id: bergen,
    });
    expect((await admin.post(`/api/personevents/${event.event_id}`).send({ user_name: 'html1' })).status).toBe(200);

    const [mail] = await mailsTo('html1@acme.example', /^Signed on: Mail sample course$/);
    mkdirSync(dirname(SAMPLE), { recursive: true });
    writeFileSync(SAMPLE, mail.raw.raw);
    const { parsed } = mail;
    expect(parsed.text).toContain('You are signed on to "Mail sample course"');
    expect(parsed.text).toContain('Bergen yard');
    const html = String(parsed.html);
    expect(html).toContain('<html lang="en"');
    expect(html).toMatch(/<h1[^>]*>Signed on: Mail sample course<\/h1>/);
    expect(html).toContain('background:#0b5394');
    expect(html).toContain('<img src="https://acme.example/logo.png" alt="');
    expect(html).toMatch(/<footer/);
    expect(mail.raw.raw).toMatch(/Content-Type: multipart\/alternative/i);
    const calendar = await invite(mail.raw);
    expect(calendar.method).toBe('REQUEST');
    expect(calendar.events[0]?.summary).toBe('Mail sample course');
    // the message keeps its HTML
    const row = await tenantDb(bed.t, bed.acme).table('messages').where({ title: 'Signed on: Mail sample course' }).first('html', 'calendar');
    expect(row.html).toContain('<main');
    expect(row.calendar).toContain('METHOD:REQUEST');
  });
});
