import { writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCalendarBed, createEvent, addPersons, daysAhead } from '../authoring/authoring-support';
import { invite, mailTo } from './calendar-support';

const bed = useCalendarBed();
const SAMPLE = join(process.cwd(), '.test-results', 'sign-on-invite-sample.eml');

describe('calendar invites (issue 39 item 1)', () => {
  it('sign-on REQUEST, update after a time change, promotion REQUEST, CANCEL on sign-off and on cancellation', async () => {
    const [admin, kari] = [await bed.as('admin'), await bed.as('kari')];
    await addPersons(bed, ['inv1', 'inv2'], 'Operations North');
    const [inv1, inv2] = [await bed.idOf('persons', { user_name: 'inv1' }), await bed.idOf('persons', { user_name: 'inv2' })];
    const course = await bed.idOf('competences', { title: 'Calendar course' });
    const m1 = await bed.idOf('competences', { title: 'Calendar course: module 1' });
    const bergen = await bed.idOf('locations', { name: 'Bergen yard' });
    const title = 'Invite course run';
    const event = await createEvent(kari, {
      competence_id: course,
      title,
      startdate: daysAhead(420, 9),
      enddate: daysAhead(420, 15),
      location_id: bergen,
      max_participants: 1,
    });
    const module = await createEvent(kari, { competence_id: m1, parent_id: event.event_id, startdate: daysAhead(420, 9), enddate: daysAhead(420, 12) });
    const host = bed.acme.host;
    const uid = (eventId: number, personId: number) => `event-${eventId}-person-${personId}@${host}`;

    // inv1 takes the seat, inv2 waits
    expect((await admin.post(`/api/personevents/${event.event_id}`).send({ user_name: 'inv1' })).status).toBe(200);
    const waiting = await admin.post(`/api/personevents/${event.event_id}`).send({ user_name: 'inv2' });
    expect(waiting.body.message).toContain('wait list');

    const signedOn = await mailTo(bed, 'inv1@acme.example', `Signed on: ${title}`);
    mkdirSync(dirname(SAMPLE), { recursive: true });
    writeFileSync(SAMPLE, signedOn.raw);
    const first = await invite(signedOn);
    expect(first.method).toBe('REQUEST');
    expect(first.events.map((e) => e.uid)).toEqual([uid(event.event_id, inv1), uid(module.event_id, inv1)]);
    const [courseEntry, moduleEntry] = first.events;
    expect(courseEntry.start.toISOString()).toBe(new Date(daysAhead(420, 9)).toISOString());
    expect(courseEntry.end.toISOString()).toBe(new Date(daysAhead(420, 15)).toISOString());
    expect(moduleEntry.end.toISOString()).toBe(new Date(daysAhead(420, 12)).toISOString());
    expect(courseEntry.location).toBe('Bergen yard, Kaien 5, Bergen');
    expect(courseEntry.summary).toBe(title);
    expect(Number(courseEntry.sequence)).toBe(0);
    expect(String((courseEntry as any).organizer?.val ?? (courseEntry as any).organizer)).toMatch(/^mailto:[^@]+@/i);
    expect(JSON.stringify((courseEntry as any).attendee).toLowerCase()).toContain('mailto:inv1@acme.example');
    expect(first.attachment).toContain(`UID:${uid(event.event_id, inv1)}`);
    // the wait list gets no invite
    await new Promise((r) => setTimeout(r, 500));
    expect(bed.smtp.mails.filter((m) => m.rcptTo.includes('inv2@acme.example'))).toEqual([]);

    // a time change: the same UID, a higher SEQUENCE, the new time
    const moved = await kari.put(`/api/events/${event.event_id}`).send({ event_data: { startdate: daysAhead(420, 8), enddate: daysAhead(420, 16) } });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    const update = await invite(await mailTo(bed, 'inv1@acme.example', `Changed: ${title}`));
    expect(update.method).toBe('REQUEST');
    const changed = update.events.find((e) => e.uid === uid(event.event_id, inv1))!;
    expect(Number(changed.sequence)).toBeGreaterThan(Number(courseEntry.sequence));
    expect(changed.start.toISOString()).toBe(new Date(daysAhead(420, 8)).toISOString());
    // a change that moves nothing sends nothing
    expect((await kari.put(`/api/events/${event.event_id}`).send({ event_data: { description: 'bring boots' } })).status).toBe(200);

    // inv1 signs off: CANCEL for inv1, and inv2 gets the seat with its REQUEST
    const off = await admin.put(`/api/personevents/${event.event_id}`).send({ user_name: 'inv1', action: 'off' });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    const withdrawn = await invite(await mailTo(bed, 'inv1@acme.example', `Signed off: ${title}`));
    expect(withdrawn.method).toBe('CANCEL');
    expect(withdrawn.events.map((e) => e.uid)).toEqual([uid(event.event_id, inv1), uid(module.event_id, inv1)]);
    expect(withdrawn.events.every((e) => e.status === 'CANCELLED')).toBe(true);
    expect(Number(withdrawn.events[0].sequence)).toBe(Number(changed.sequence));
    const promoted = await invite(await mailTo(bed, 'inv2@acme.example', `You have a seat: ${title}`));
    expect(promoted.method).toBe('REQUEST');
    expect(promoted.events[0]).toMatchObject({ uid: uid(event.event_id, inv2), location: 'Bergen yard, Kaien 5, Bergen' });

    // the event is cancelled: inv2's invite is withdrawn
    expect((await kari.put(`/api/events/${event.event_id}/cancel`).send({ reason: 'storm' })).status).toBe(200);
    const cancelled = await invite(await mailTo(bed, 'inv2@acme.example', `Cancelled: ${title}`));
    expect(cancelled.method).toBe('CANCEL');
    expect(cancelled.events.map((e) => e.uid)).toEqual([uid(event.event_id, inv2), uid(module.event_id, inv2)]);
    expect(cancelled.events.every((e) => e.status === 'CANCELLED')).toBe(true);
    // the managers' copies carry no calendar
    const copy = await mailTo(bed, 'kari@acme.example', `Cancelled: ${title} (inv2)`);
    expect(copy.raw).not.toContain('text/calendar');
    // nothing else reached inv1 after the sign-off, and the description change sent no update
    expect(bed.smtp.mails.filter((m) => m.rcptTo.includes('inv1@acme.example')).map((m) => m.headers.subject.split(':')[0])).toEqual([
      'Signed on',
      'Changed',
      'Signed off',
    ]);
  });
});
