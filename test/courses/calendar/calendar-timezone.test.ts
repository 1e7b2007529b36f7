import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { useCalendarBed, createEvent, addPersons, daysAhead } from '../authoring/authoring-support';
import { setConfig, tenantDb } from '../events/events-support';
import { invite, mailTo, vevents } from './calendar-support';

/**
 * Issue 39 item 1, the tenant's time zone: DTSTART/DTEND carry the TZID of tenant.timezone with its
 * VTIMEZONE (UTC times when the tenant has none), in the invite and in the feed; and a sign-on
 * invite follows the person's notification preference for sign_on.
 */
const bed = useCalendarBed();

/** The wall-clock time of `iso` in `zone`, as iCalendar writes it (YYYYMMDDTHHMMSS). */
function localStamp(iso: string, zone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(new Date(iso))
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}${parts.month}${parts.day}T${parts.hour}${parts.minute}${parts.second}`;
}

describe('calendar invites and feed in the tenant time zone', () => {
  it('UTC when the tenant has no zone; with Europe/Oslo a VTIMEZONE and DTSTART;TZID with the local start, the same instant', async () => {
    const [admin, kari] = [await bed.as('admin'), await bed.as('kari')];
    await addPersons(bed, ['tz1', 'tz2'], 'Operations North');
    const course = await bed.idOf('competences', { title: 'Calendar course' });
    // one date in summer time and one in winter time: the VTIMEZONE must carry both rules
    const summer = daysAhead(600, 9);
    const summerEvent = await createEvent(kari, { competence_id: course, title: 'TZ run A', startdate: summer, enddate: daysAhead(600, 15) });
    const winter = daysAhead(780, 9);
    const winterEvent = await createEvent(kari, { competence_id: course, title: 'TZ run B', startdate: winter, enddate: daysAhead(780, 15) });

    expect((await admin.post(`/api/personevents/${summerEvent.event_id}`).send({ user_name: 'tz1' })).status).toBe(200);
    const utc = await mailTo(bed, 'tz1@acme.example', 'Signed on: TZ run A');
    const utcText = (await invite(utc)).attachment;
    expect(utcText).not.toContain('BEGIN:VTIMEZONE');
    expect(utcText).toMatch(/^DTSTART:\d{8}T\d{6}Z\r?$/m);

    await setConfig(bed.t, bed.acme, 'tenant.timezone', 'Europe/Oslo');
    try {
      for (const e of [summerEvent, winterEvent]) expect((await admin.post(`/api/personevents/${e.event_id}`).send({ user_name: 'tz2' })).status).toBe(200);
      for (const [title, start] of [
        ['TZ run A', summer],
        ['TZ run B', winter],
      ] as const) {
        const parsed = await invite(await mailTo(bed, 'tz2@acme.example', `Signed on: ${title}`));
        const text = parsed.attachment;
        expect(text).toContain('BEGIN:VTIMEZONE');
        expect(text).toMatch(/^TZID:Europe\/Oslo\r?$/m);
        expect(text).toContain('TZOFFSETTO:+0200');
        expect(text).toContain('TZOFFSETTO:+0100');
        expect(text).toContain(`DTSTART;TZID=Europe/Oslo:${localStamp(start, 'Europe/Oslo')}`);
        // node-ical reads it back to the event's instant
        const [entry] = parsed.events;
        expect(entry.start.toISOString()).toBe(new Date(start).toISOString());
        expect((entry.start as any).tz).toBe('Europe/Oslo');
      }

      // the personal feed too
      const tz2 = await bed.as('admin');
      const made = await tz2.get('/api/persons/tz2/calendar');
      expect(made.status, JSON.stringify(made.body)).toBe(200);
      const path = new URL(made.body.calendar[0].feed_url).pathname;
      const feed = await request(bed.t.app).get(path).set('Host', bed.acme.host);
      expect(feed.status).toBe(200);
      expect(feed.text).toContain('BEGIN:VTIMEZONE');
      expect(feed.text).toContain(`DTSTART;TZID=Europe/Oslo:${localStamp(winter, 'Europe/Oslo')}`);
      const fromFeed = vevents(feed.text);
      expect(fromFeed.map((e) => e.start.toISOString())).toEqual([new Date(summer).toISOString(), new Date(winter).toISOString()]);
    } finally {
      await setConfig(bed.t, bed.acme, 'tenant.timezone', 'UTC');
    }
  });

  it('a sign-on invite follows the preference for sign_on: none sends nothing, both an e-mail with the invite and an SMS without it', async () => {
    const [admin, kari] = [await bed.as('admin'), await bed.as('kari')];
    await addPersons(bed, ['pref1', 'pref2'], 'Operations North');
    const db = tenantDb(bed.t, bed.acme);
    await db.table('persons').where('user_name', 'pref2').update({ mobile: '+4790000077' });
    expect((await admin.put('/api/persons/pref1/notificationpreferences').send({ preferences: { sign_on: 'none' } })).status).toBe(200);
    expect((await admin.put('/api/persons/pref2/notificationpreferences').send({ preferences: { sign_on: 'both' } })).status).toBe(200);
    const course = await bed.idOf('competences', { title: 'Calendar course' });
    const event = await createEvent(kari, { competence_id: course, title: 'Pref run', startdate: daysAhead(610, 9), enddate: daysAhead(610, 15) });
    for (const who of ['pref1', 'pref2']) expect((await admin.post(`/api/personevents/${event.event_id}`).send({ user_name: who })).status).toBe(200);

    const mail = await invite(await mailTo(bed, 'pref2@acme.example', 'Signed on: Pref run'));
    expect(mail.method).toBe('REQUEST');
    const messages = async (user: string) =>
      db
        .table('messages as m')
        .join('persons as p', 'p.id', 'm.recipient_id')
        .where('p.user_name', user)
        .where('m.title', 'Signed on: Pref run')
        .select('m.id', 'm.send_medium');
    const [both] = await messages('pref2');
    expect(both.send_medium).toBe('both');
    const deliveries = await db.table('message_deliveries').where('message_id', both.id).orderBy('medium').select('medium', 'address');
    expect(deliveries).toEqual([
      { medium: 'email', address: 'pref2@acme.example' },
      { medium: 'sms', address: '+4790000077' },
    ]);
    expect(await messages('pref1')).toEqual([]);
    expect(bed.smtp.mails.filter((m) => m.rcptTo.includes('pref1@acme.example'))).toEqual([]);
  });

  it("a cancellation's notices follow each one's preference for event_cancelled: the participant's SMS, the manager's copy turned off", async () => {
    const [admin, kari] = [await bed.as('admin'), await bed.as('kari')];
    await addPersons(bed, ['canc1'], 'Operations North');
    const db = tenantDb(bed.t, bed.acme);
    await db.table('persons').where('user_name', 'canc1').update({ mobile: '+4790000078' });
    expect((await admin.put('/api/persons/canc1/notificationpreferences').send({ preferences: { event_cancelled: 'sms' } })).status).toBe(200);
    expect((await admin.put('/api/persons/kari/notificationpreferences').send({ preferences: { event_cancelled: 'none' } })).status).toBe(200);
    const course = await bed.idOf('competences', { title: 'Calendar course' });
    const event = await createEvent(kari, { competence_id: course, title: 'Cancel run', startdate: daysAhead(620, 9), enddate: daysAhead(620, 15) });
    expect((await admin.post(`/api/personevents/${event.event_id}`).send({ user_name: 'canc1' })).status).toBe(200);
    expect((await kari.put(`/api/events/${event.event_id}/cancel`).send({ reason: 'no trainer' })).status).toBe(200);
    const notices = await db
      .table('messages as m')
      .join('persons as p', 'p.id', 'm.recipient_id')
      .where('m.title', 'like', 'Cancelled: Cancel run%')
      .select('p.user_name', 'm.id', 'm.send_medium', 'm.calendar');
    expect(notices.map((n: any) => [n.user_name, n.send_medium])).toEqual([['canc1', 'sms']]);
    // an SMS carries no calendar
    expect(notices[0].calendar).toBeNull();
    expect(await db.table('message_deliveries').where('message_id', notices[0].id).select('medium', 'address')).toEqual([
      { medium: 'sms', address: '+4790000078' },
    ]);
    await admin.put('/api/persons/kari/notificationpreferences').send({ preferences: { event_cancelled: 'default' } });
  });
});
