import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { useCalendarBed, createEvent, addPersons, daysAhead } from '../authoring/authoring-support';
import { importDemoTenant, type DemoTenant } from '../../support/test-app';
import { tenantDb } from '../events/events-support';
import { invite, mailTo, vevents } from './calendar-support';

const bed = useCalendarBed();
let globex: DemoTenant;
beforeAll(async () => {
  globex = await importDemoTenant(bed.t, 'globex');
});

/** GET of a feed path without any login, on `host`. */
const fetchFeed = (path: string, host = bed.acme.host) => request(bed.t.app).get(path).set('Host', host);

describe('personal calendar feed (issue 39 item 2)', () => {
  it("lists exactly the person's upcoming seats; shown once; 403 for others; 404 on another host and after revocation", async () => {
    const [admin, kari, ola] = [await bed.as('admin'), await bed.as('kari'), await bed.as('ola')];
    await addPersons(bed, ['feed1', 'feed2'], 'Operations North');
    const feed1 = await bed.idOf('persons', { user_name: 'feed1' });
    const course = await bed.idOf('competences', { title: 'Calendar course' });
    const m2 = await bed.idOf('competences', { title: 'Calendar course: module 2' });
    const ev = async (title: string, day: number, extra: Record<string, unknown> = {}) =>
      createEvent(kari, { competence_id: course, title, startdate: daysAhead(day, 9), enddate: daysAhead(day, 15), ...extra });
    const seat = await ev('Feed: seat', 500);
    const module = await createEvent(kari, { competence_id: m2, parent_id: seat.event_id, startdate: daysAhead(500, 13), enddate: daysAhead(500, 15) });
    const cancelled = await ev('Feed: cancelled', 501);
    const full = await ev('Feed: wait list', 502, { max_participants: 1 });
    const left = await ev('Feed: signed off', 503);
    const others = await ev('Feed: someone else', 504);
    const past = await ev('Feed: past', 505);
    const signOn = async (eventId: number, userName: string) =>
      expect((await admin.post(`/api/personevents/${eventId}`).send({ user_name: userName })).status).toBe(200);
    for (const e of [seat, cancelled, left, past]) await signOn(e.event_id, 'feed1');
    await signOn(full.event_id, 'feed2');
    await signOn(full.event_id, 'feed1'); // wait list
    await signOn(others.event_id, 'feed2');
    expect((await admin.put(`/api/personevents/${left.event_id}`).send({ user_name: 'feed1', action: 'off' })).status).toBe(200);
    expect((await kari.put(`/api/events/${cancelled.event_id}/cancel`)).status).toBe(200);
    // an event that has ended (moved into the past behind the API's back: authoring refuses the past)
    await tenantDb(bed.t, bed.acme)
      .table('events')
      .where({ id: past.event_id })
      .update({ starts_at: new Date(Date.now() - 3 * 86_400_000), ends_at: new Date(Date.now() - 2 * 86_400_000) });

    // someone who is neither self, manager nor superuser
    const denied = await ola.get('/api/persons/feed1/calendar');
    expect(denied.status).toBe(403);

    // the manager makes it: the URL is shown once
    const made = await kari.get('/api/persons/feed1/calendar');
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const view = made.body.calendar[0];
    expect(view).toMatchObject({ user_name: 'feed1', created: true });
    const url = new URL(view.feed_url);
    expect(url.host).toBe(bed.acme.host);
    const token = /^\/calendar\/([A-Za-z0-9_-]+)\.ics$/.exec(url.pathname)![1];
    expect(Buffer.from(token, 'base64url').length).toBeGreaterThanOrEqual(16);
    const stored = await tenantDb(bed.t, bed.acme).table('calendar_feeds').where({ person_id: feed1 }).first();
    expect(stored.token_hash).not.toContain(token);
    const again = await admin.get('/api/persons/feed1/calendar');
    expect(again.body.calendar[0]).toMatchObject({ created: false, feed_url: null, created_at: view.created_at });

    const res = await fetchFeed(url.pathname);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/calendar/);
    const events = vevents(res.text);
    expect(events.map((e) => e.uid)).toEqual([
      `event-${seat.event_id}-person-${feed1}@${bed.acme.host}`,
      `event-${module.event_id}-person-${feed1}@${bed.acme.host}`,
    ]);
    expect(events.map((e) => e.summary)).toEqual(['Feed: seat', 'Calendar course: module 2']);
    expect(res.text).not.toContain('METHOD:');

    // another tenant's host, an unknown token
    expect((await fetchFeed(url.pathname, globex.host)).status).toBe(404);
    expect((await fetchFeed('/calendar/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA.ics')).status).toBe(404);

    // a deactivated person's feed stops, and comes back with them
    expect((await admin.put('/api/persons/feed1/deactivate')).status).toBe(200);
    expect((await fetchFeed(url.pathname)).status).toBe(404);
    // the deactivation ended the coming seat: its invite is withdrawn
    const withdrawn = await invite(await mailTo(bed, 'feed1@acme.example', 'Signed off: Feed: seat'));
    expect(withdrawn.method).toBe('CANCEL');
    expect(withdrawn.events[0].uid).toBe(`event-${seat.event_id}-person-${feed1}@${bed.acme.host}`);
    expect((await admin.put('/api/persons/feed1/reactivate')).status).toBe(200);
    expect((await fetchFeed(url.pathname)).status).toBe(200);

    // revoked: 404, and a new GET makes a new URL
    const revoked = await kari.delete('/api/persons/feed1/calendar');
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    expect((await fetchFeed(url.pathname)).status).toBe(404);
    expect((await kari.delete('/api/persons/feed1/calendar')).status).toBe(404);
    const fresh = await admin.get('/api/persons/feed1/calendar');
    expect(fresh.body.calendar[0].created).toBe(true);
    expect(fresh.body.calendar[0].feed_url).not.toBe(view.feed_url);

    const entries = async (type: string) => {
      const res = await admin.get(`/api/auditlog?type=${type}&limit=100`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return (res.body.auditlog as any[])
        .filter((e) => e.subject === 'feed1')
        .map((e) => e.actor)
        .sort();
    };
    expect(await entries('calendar_feed.created')).toEqual(['admin', 'kari']);
    expect(await entries('calendar_feed.revoked')).toEqual(['kari']);

    // self may have one too
    const own = await ola.get('/api/persons/ola/calendar');
    expect(own.status).toBe(200);
    expect(own.body.calendar[0].created).toBe(true);
  });
});
