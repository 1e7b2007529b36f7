import { describe, expect, it } from 'vitest';
import { useCalendarBed, createEvent, addPersons, daysAhead, type Api } from './authoring-support';
import { tenantDb } from '../events/events-support';
import { waitFor } from '../../messaging/messages/delivery-peers';

const bed = useCalendarBed();

/** Messages whose title names the event's cancellation, by recipient user name. */
async function cancellationMessages(title: string): Promise<{ user_name: string; title: string; text: string }[]> {
  const db = tenantDb(bed.t, bed.acme);
  return db
    .table('messages as m')
    .join('persons as p', 'p.id', 'm.recipient_id')
    .where('m.title', 'like', `Cancelled: ${title}%`)
    .orderBy('m.id')
    .select('p.user_name', 'm.title', 'm.text');
}

/** A webhook endpoint for the calendar's events (to a port nobody listens on: what counts is that the event is written). */
async function subscribe(admin: Api): Promise<void> {
  const res = await admin
    .post('/api/webhooks')
    .send({ url: 'http://127.0.0.1:9/calendar', events: ['event.cancelled', 'event.updated', 'event.created'], description: 'calendar' });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

async function webhookEvents(type: string, eventId: number): Promise<any[]> {
  const rows = await tenantDb(bed.t, bed.acme).table('webhook_events').where({ type }).select('body');
  return rows.map((r: { body: string }) => JSON.parse(r.body)).filter((b: any) => b.data.event_id === eventId);
}

describe('PUT /api/events/[id]/cancel', () => {
  it("3 participants and 2 on the wait list: 5 notices and their managers' copies exactly once, places ended, one event.cancelled", async () => {
    const [admin, kari] = [await bed.as('admin'), await bed.as('kari')];
    await subscribe(admin);
    await addPersons(bed, ['cx1', 'cx2', 'cx3', 'cx4'], 'Operations North'); // nearest manager: kari (Operations)
    await addPersons(bed, ['cx5'], 'Human Resources'); // nearest manager: mona
    const course = await bed.idOf('competences', { title: 'Calendar course' });
    const m1 = await bed.idOf('competences', { title: 'Calendar course: module 1' });
    const title = 'Cancelled course run';
    const event = await createEvent(kari, { competence_id: course, title, startdate: daysAhead(300, 9), enddate: daysAhead(300, 15), max_participants: 3 });
    const module = await createEvent(kari, { competence_id: m1, parent_id: event.event_id, startdate: daysAhead(300, 9), enddate: daysAhead(300, 12) });
    for (const u of ['cx1', 'cx2', 'cx3', 'cx4', 'cx5'])
      expect((await admin.post(`/api/personevents/${event.event_id}`).send({ user_name: u })).status).toBe(200);

    const res = await kari.put(`/api/events/${event.event_id}/cancel`).send({ reason: 'instructor ill' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.message).toContain('5 place(s) ended, 10 notice(s) written');
    expect(res.body.events[0]).toMatchObject({ event_id: event.event_id, cancelled: true, cancel_reason: 'instructor ill', participants: 0, waitlist: 0 });
    expect(res.body.events[0].cancelled_at).toBeTruthy();
    expect(res.body.events[0].children[0]).toMatchObject({ event_id: module.event_id, cancelled: true });

    const messages = await cancellationMessages(title);
    const to = (u: string) => messages.filter((m) => m.user_name === u);
    for (const u of ['cx1', 'cx2', 'cx3', 'cx4', 'cx5']) {
      expect(to(u)).toHaveLength(1);
      expect(to(u)[0].text).toContain('Reason: instructor ill');
    }
    expect(to('cx4')[0].text).toContain('place on the wait list');
    expect(
      to('kari')
        .map((m) => m.title)
        .sort(),
    ).toEqual(['cx1', 'cx2', 'cx3', 'cx4'].map((u) => `Cancelled: ${title} (${u})`));
    expect(to('mona').map((m) => m.title)).toEqual([`Cancelled: ${title} (cx5)`]);
    expect(messages).toHaveLength(10);
    // the copy is the manager's own message
    const mine = await kari.get('/api/messages?limit=100');
    expect((mine.body.messages as any[]).filter((m) => m.title.startsWith(`Cancelled: ${title} (`))).toHaveLength(4);

    const live = await tenantDb(bed.t, bed.acme).table('person_events').where({ event_id: event.event_id }).whereNot('status', 'signed_off');
    expect(live).toEqual([]);
    const hooks = await webhookEvents('event.cancelled', event.event_id);
    expect(hooks).toHaveLength(1);
    expect(hooks[0].data).toMatchObject({ event_id: event.event_id, cancelled: true, reason: 'instructor ill' });

    // delivered, each once, to the SMTP sink
    const subjects = () => bed.smtp.mails.filter((m) => (m.headers.subject ?? '').startsWith(`Cancelled: ${title}`)); // not the sign-on confirmations
    await waitFor('the 10 mails', () => subjects().length >= 10, 30_000);
    expect(
      subjects()
        .map((m) => m.rcptTo[0])
        .sort(),
    ).toEqual(['cx1', 'cx2', 'cx3', 'cx4', 'cx5', 'kari', 'kari', 'kari', 'kari', 'mona'].map((u) => `${u}@acme.example`).sort());

    // a second cancel changes nothing
    const again = await kari.put(`/api/events/${event.event_id}/cancel`).send({ reason: 'again' });
    expect(again.status).toBe(200);
    expect(again.body.message).toContain('already cancelled');
    expect(again.body.events[0].cancel_reason).toBe('instructor ill');
    expect(await cancellationMessages(title)).toHaveLength(10);
    expect(await webhookEvents('event.cancelled', event.event_id)).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 1000));
    expect(subjects()).toHaveLength(10);

    // check_join answers the seed's cancelled reason
    const check = await admin.get(`/api/events/${event.event_id}/check_join?user_name=cx1`);
    expect(check.body).toMatchObject({ can_join: false });
    expect(check.body.reason).toContain('cancelled');
    const audit = await admin.get('/api/auditlog?type=event.cancelled&limit=100');
    const entries = (audit.body.auditlog as any[]).filter((e) => e.subject === String(event.event_id));
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actor: 'kari', details: { reason: 'instructor ill', places_ended: 5 } });
    // the change shows in the changes feed
    const feed = await admin.get(`/api/changes?Type=events&startdate=${encodeURIComponent(new Date(Date.now() - 60_000).toISOString())}&limit=100`);
    expect((feed.body.changes as any[]).find((r) => r.event_id === event.event_id)).toMatchObject({ cancelled: true, deleted: false });
  });

  it('a deactivated manager gets no copy: it goes to the nearest active managers above', async () => {
    const [admin, kari] = [await bed.as('admin'), await bed.as('kari')];
    await addPersons(bed, ['dx1'], 'Human Resources'); // nearest manager: mona
    const course = await bed.idOf('competences', { title: 'Calendar course' });
    const title = 'Cancelled without mona';
    const event = await createEvent(kari, { competence_id: course, title, startdate: daysAhead(310, 9), enddate: daysAhead(310, 15) });
    expect((await admin.post(`/api/personevents/${event.event_id}`).send({ user_name: 'dx1' })).status).toBe(200);
    expect((await admin.put('/api/persons/mona/deactivate')).status).toBe(200);
    try {
      expect((await kari.put(`/api/events/${event.event_id}/cancel`)).status).toBe(200);
      const messages = await cancellationMessages(title);
      expect(messages.filter((m) => m.user_name === 'dx1')).toHaveLength(1);
      expect(messages.filter((m) => m.user_name === 'mona')).toEqual([]);
    } finally {
      expect((await admin.put('/api/persons/mona/reactivate')).status).toBe(200);
    }
  });

  it('an Idempotency-Key replay of a cancel answers the same and writes no second notice', async () => {
    const admin = await bed.as('admin');
    await addPersons(bed, ['ix1'], 'Operations North');
    const course = await bed.idOf('competences', { title: 'Calendar course' });
    const title = 'Replayed cancel';
    const event = await createEvent(admin, { competence_id: course, title, startdate: daysAhead(310, 9), enddate: daysAhead(310, 15) });
    expect((await admin.post(`/api/personevents/${event.event_id}`).send({ user_name: 'ix1' })).status).toBe(200);
    const first = await admin.put(`/api/events/${event.event_id}/cancel`).set('Idempotency-Key', 'cancel-once').send({ reason: 'rain' });
    expect(first.status).toBe(200);
    const again = await admin.put(`/api/events/${event.event_id}/cancel`).set('Idempotency-Key', 'cancel-once').send({ reason: 'rain' });
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await cancellationMessages(title)).map((m) => m.user_name)).toEqual(['ix1', 'kari']);
  });

  it('uncancel: before the start it lifts the cancellation but not the ended places; after the start it is a 409', async () => {
    const admin = await bed.as('admin');
    await addPersons(bed, ['ux1'], 'Operations North');
    const course = await bed.idOf('competences', { title: 'Calendar course' });
    const event = await createEvent(admin, { competence_id: course, title: 'Uncancel me', startdate: daysAhead(320, 9), enddate: daysAhead(320, 15) });
    expect((await admin.post(`/api/personevents/${event.event_id}`).send({ user_name: 'ux1' })).status).toBe(200);
    expect((await admin.put(`/api/events/${event.event_id}/cancel`)).status).toBe(200);
    const lifted = await admin.put(`/api/events/${event.event_id}/uncancel`);
    expect(lifted.status).toBe(200);
    expect(lifted.body.events[0]).toMatchObject({ cancelled: false, cancel_reason: null, participants: 0 });
    expect(lifted.body.message).toContain('stay ended');

    const started = await createEvent(admin, { competence_id: course, title: 'Started already', startdate: daysAhead(-1, 9), enddate: daysAhead(2, 15) });
    expect((await admin.put(`/api/events/${started.event_id}/cancel`)).status).toBe(200);
    const late = await admin.put(`/api/events/${started.event_id}/uncancel`);
    expect(late.body).toMatchObject({ valid: false, errorcode: 409 });
    expect(late.body.message).toContain('started');
  });
});

describe('PUT /api/events/[id]/lock and /unlock', () => {
  it('a locked event refuses sign-on and sign-off; unlocked, both work again', async () => {
    const admin = await bed.as('admin');
    await addPersons(bed, ['lx1', 'lx2'], 'Operations North');
    const course = await bed.idOf('competences', { title: 'Calendar course' });
    const event = await createEvent(admin, { competence_id: course, title: 'Locked run', startdate: daysAhead(330, 9), enddate: daysAhead(330, 15) });
    expect((await admin.post(`/api/personevents/${event.event_id}`).send({ user_name: 'lx1' })).status).toBe(200);
    const locked = await admin.put(`/api/events/${event.event_id}/lock`);
    expect(locked.body.events[0].locked).toBe(true);
    const on = await admin.post(`/api/personevents/${event.event_id}`).send({ user_name: 'lx2' });
    expect(on.body).toMatchObject({ errorcode: 409 });
    expect(on.body.reason).toContain('locked');
    // kari, lx1's manager, signs lx1 off: refused (a superuser may still, as before)
    const kari = await bed.as('kari');
    const off = await kari.put(`/api/personevents/${event.event_id}`).send({ user_name: 'lx1', action: 'off' });
    expect(off.body).toMatchObject({ errorcode: 409 });
    expect(off.body.message).toContain('locked');
    expect((await admin.put(`/api/events/${event.event_id}/unlock`)).body.events[0].locked).toBe(false);
    expect((await kari.put(`/api/personevents/${event.event_id}`).send({ user_name: 'lx1', action: 'off' })).status).toBe(200);
    expect((await admin.post(`/api/personevents/${event.event_id}`).send({ user_name: 'lx2' })).status).toBe(200);
    const audit = await admin.get('/api/auditlog?type=event.locked,event.unlocked&limit=100');
    expect(
      (audit.body.auditlog as any[])
        .filter((e) => e.subject === String(event.event_id))
        .map((e) => e.type)
        .sort(),
    ).toEqual(['event.locked', 'event.unlocked']);
  });
});
