import { describe, expect, it } from 'vitest';
import { useCalendarBed, createEvent, addPersons, daysAhead } from './authoring-support';
import { setConfig, tenantDb } from '../events/events-support';
import { importDemoTenant, client } from '../../support/test-app';
import { GLOBEX_PASSWORDS, loginCookie } from '../../support/login';

const bed = useCalendarBed();

describe('POST /api/events and GET /api/events/[id]', () => {
  it('a course event with two module events, created through the API, reads back as written (times without offset in the tenant zone)', async () => {
    await setConfig(bed.t, bed.acme, 'tenant.timezone', 'Europe/Oslo');
    try {
      const kari = await bed.as('kari');
      const [course, m1, m2] = await Promise.all(
        ['Calendar course', 'Calendar course: module 1', 'Calendar course: module 2'].map((title) => bed.idOf('competences', { title })),
      );
      const bergen = await bed.idOf('locations', { name: 'Bergen yard' });
      const ops = await bed.idOf('organisations', { name: 'Operations' });
      const fire = await bed.idOf('competences', { title: 'Fire safety e-learning' });
      const written = {
        competence_id: course,
        title: 'Calendar course, September',
        startdate: '2032-09-01T09:00', // Oslo summer time: 07:00 UTC
        enddate: '2032-09-02T16:00:00+01:00',
        location_id: bergen,
        max_participants: 8,
        min_age: 18,
        signon_opens: '2032-01-01T00:00:00Z',
        signon_closes: '2032-08-25T12:00',
        instructor_user_name: 'tor',
        host_organisation_id: ops,
        description: 'Two days on the yard.',
        prerequisite_competence_ids: [fire],
        custom_attributes: { region: 'west', cost_centre: 'CC-9' },
      };
      const created = await createEvent(kari, written);
      expect(created).toMatchObject({
        competence_id: course,
        competence_title: 'Calendar course',
        title: 'Calendar course, September',
        parent_id: null,
        startdate: '2032-09-01T07:00:00.000Z',
        enddate: '2032-09-02T15:00:00.000Z',
        location_id: bergen,
        location_name: 'Bergen yard',
        max_participants: 8,
        participants: 0,
        waitlist: 0,
        places: 8,
        min_age: 18,
        signon_opens: '2032-01-01T00:00:00.000Z',
        signon_closes: '2032-08-25T10:00:00.000Z',
        instructor_user_name: 'tor',
        host_organisation_id: ops,
        description: 'Two days on the yard.',
        prerequisites: [fire],
        custom_attributes: { region: 'west', cost_centre: 'CC-9' },
        cancelled: false,
        locked: false,
        cancel_reason: null,
        children: [],
      });
      const first = await createEvent(kari, { competence_id: m1, parent_id: created.event_id, startdate: '2032-09-01T09:00', enddate: '2032-09-01T16:00' });
      expect(first).toMatchObject({ parent_id: created.event_id, title: 'Calendar course: module 1', startdate: '2032-09-01T07:00:00.000Z' });
      expect(first.children).toBeUndefined();
      // bracket form as a form post, the way the seed's clients send person_data
      const form = await kari
        .post('/api/events')
        .type('form')
        .send(
          `event_data[competence_id]=${m2}&event_data[parent_id]=${created.event_id}&event_data[title]=Day+two&event_data[startdate]=2032-09-02T09:00&event_data[enddate]=2032-09-02T16:00`,
        );
      expect(form.status, JSON.stringify(form.body)).toBe(200);
      const second = form.body.events[0];

      const read = await kari.get(`/api/events/${created.event_id}`);
      expect(read.status).toBe(200);
      const { children, ...course1 } = read.body.events[0];
      const { children: _none, ...written1 } = created;
      expect(course1).toEqual(written1);
      expect(children.map((c: any) => [c.event_id, c.title, c.competence_id, c.startdate])).toEqual([
        [first.event_id, 'Calendar course: module 1', m1, '2032-09-01T07:00:00.000Z'],
        [second.event_id, 'Day two', m2, '2032-09-02T07:00:00.000Z'],
      ]);
      const module = await kari.get(`/api/events/${second.event_id}`);
      expect(module.body.events[0]).toEqual(second);
      const listed = await kari.get(`/api/competences/${course}/events?mode=all`);
      expect(listed.body.events.map((e: any) => e.event_id)).toContain(created.event_id);
    } finally {
      await setConfig(bed.t, bed.acme, 'tenant.timezone', 'UTC');
    }
  });

  it('refuses what does not fit: end before start, a module outside its course, wrong competences, unknown attributes (420); no competence (419)', async () => {
    const admin = await bed.as('admin');
    const [course, m1, hseModule, skill] = await Promise.all(
      ['Calendar course', 'Calendar course: module 1', 'HSE basic: module 1, risk', 'TIG welding'].map((title) => bed.idOf('competences', { title })),
    );
    const bad = async (data: Record<string, unknown>, code: number, parameter: string, text?: string) => {
      const res = await admin.post('/api/events').send({ event_data: data });
      expect(res.body, JSON.stringify(res.body)).toMatchObject({ valid: false, errorcode: code });
      expect(res.body.message).toContain(parameter);
      if (text) expect(res.body.message).toContain(text);
    };
    const when = { startdate: '2032-05-01T09:00Z', enddate: '2032-05-01T15:00Z' };
    await bad({ competence_id: course, startdate: '2032-05-01T15:00Z', enddate: '2032-05-01T09:00Z' }, 420, 'event_data[enddate]', 'after startdate');
    await bad({ competence_id: course, startdate: '2032-05-01', enddate: '2032-05-02' }, 420, 'event_data[startdate]', 'date-time');
    await bad({ ...when }, 419, 'event_data[competence_id]');
    await bad({ competence_id: course }, 419, 'event_data[startdate]');
    await bad({ competence_id: skill, ...when }, 420, 'event_data[competence_id]', 'skill');
    await bad({ competence_id: 999999, ...when }, 420, 'event_data[competence_id]', 'no competence');
    await bad({ competence_id: course, ...when, colour: 'red' }, 420, 'event_data');
    await bad({ competence_id: course, ...when, custom_attributes: { shoe_size: '44' } }, 420, 'event_data[custom_attributes][shoe_size]', 'region');
    await bad({ competence_id: course, ...when, instructor_user_name: 'nobody' }, 420, 'event_data[instructor_user_name]');
    await bad({ competence_id: course, ...when, max_participants: 0 }, 420, 'event_data[max_participants]');
    await bad({ competence_id: m1, ...when }, 419, 'event_data[parent_id]');
    const parent = await createEvent(admin, { competence_id: course, ...when });
    await bad(
      { competence_id: m1, parent_id: parent.event_id, startdate: '2032-05-01T08:00Z', enddate: '2032-05-01T10:00Z' },
      420,
      'event_data[startdate]',
      'inside its course event',
    );
    await bad({ competence_id: hseModule, parent_id: parent.event_id, ...when }, 420, 'event_data[competence_id]', 'not a module of competence');
    await bad({ competence_id: course, parent_id: parent.event_id, ...when }, 420, 'event_data[parent_id]');
    const module = await createEvent(admin, { competence_id: m1, parent_id: parent.event_id, startdate: '2032-05-01T10:00Z', enddate: '2032-05-01T12:00Z' });
    // moving the course so that its module would lie outside it names the module
    const moved = await admin.put(`/api/events/${parent.event_id}`).send({ event_data: { startdate: '2032-05-01T11:00Z' } });
    expect(moved.body).toMatchObject({ errorcode: 420 });
    expect(moved.body.message).toContain(`module event ${module.event_id}`);
    const other = await admin.put(`/api/events/${parent.event_id}`).send({ event_data: { competence_id: m1 } });
    expect(other.body).toMatchObject({ errorcode: 420 });
  });

  it('a location with too few seats, or hosting another event at the time, is a 420 naming the clash; a cancelled event does not clash', async () => {
    const admin = await bed.as('admin');
    const course = await bed.idOf('competences', { title: 'Calendar course' });
    const oslo = await bed.idOf('locations', { name: 'Oslo HQ, room Fjord' });
    const hse = await bed.idOf('events', { title: 'HSE basic course, December' });
    const seats = await admin
      .post('/api/events')
      .send({ event_data: { competence_id: course, startdate: '2033-06-01T09:00Z', enddate: '2033-06-01T12:00Z', location_id: oslo, max_participants: 41 } });
    expect(seats.body).toMatchObject({ errorcode: 420 });
    expect(seats.body.message).toContain('event_data[location_id]');
    expect(seats.body.message).toContain('Oslo HQ, room Fjord holds 40 seats, fewer than max_participants 41');
    const clash = await admin
      .post('/api/events')
      .send({ event_data: { competence_id: course, startdate: '2031-12-11T10:00Z', enddate: '2031-12-11T12:00Z', location_id: oslo } });
    expect(clash.body).toMatchObject({ errorcode: 420 });
    expect(clash.body.message).toContain(
      `event_data[location_id]: Oslo HQ, room Fjord hosts event ${hse} "HSE basic course, December" 2031-12-10 08:00–2031-12-11 15:00 UTC`,
    );
    const cancelledRun = await bed.idOf('events', { title: 'HSE basic course, cancelled run' });
    const run = await tenantDb(bed.t, bed.acme).table('events').where({ id: cancelledRun }).first('starts_at', 'ends_at');
    await tenantDb(bed.t, bed.acme).table('events').where({ id: cancelledRun }).update({ location_id: oslo });
    const free = await admin
      .post('/api/events')
      .send({ event_data: { competence_id: course, startdate: run.starts_at.toISOString(), enddate: run.ends_at.toISOString(), location_id: oslo } });
    expect(free.status, JSON.stringify(free.body)).toBe(200);
    // a change that moves an event onto another's time clashes the same way
    const later = await createEvent(admin, { competence_id: course, startdate: '2033-07-01T09:00Z', enddate: '2033-07-01T12:00Z', location_id: oslo });
    const move = await admin.put(`/api/events/${later.event_id}`).send({ event_data: { startdate: '2031-12-10T09:00Z', enddate: '2031-12-10T10:00Z' } });
    expect(move.body.message).toContain(`hosts event ${hse}`);
  });

  it('lowering max_participants below the signed-on count is a 409; raising it gives the seat to the wait list with the notice', async () => {
    const admin = await bed.as('admin');
    const course = await bed.idOf('competences', { title: 'Calendar course' });
    await addPersons(bed, ['mx1', 'mx2', 'mx3'], 'Operations North');
    const event = await createEvent(admin, {
      competence_id: course,
      title: 'Seats event',
      startdate: daysAhead(400, 9),
      enddate: daysAhead(400, 15),
      max_participants: 2,
    });
    for (const u of ['mx1', 'mx2', 'mx3']) expect((await admin.post(`/api/personevents/${event.event_id}`).send({ user_name: u })).status).toBe(200);
    const lower = await admin.put(`/api/events/${event.event_id}`).send({ event_data: { max_participants: 1 } });
    expect(lower.body).toMatchObject({ valid: false, errorcode: 409 });
    expect(lower.body.message).toContain('2 person(s) signed on');
    const raise = await admin.put(`/api/events/${event.event_id}`).send({ event_data: { max_participants: 3 } });
    expect(raise.status, JSON.stringify(raise.body)).toBe(200);
    expect(raise.body.message).toContain('1 person(s) moved from the wait list');
    expect(raise.body.events[0]).toMatchObject({ max_participants: 3, participants: 3, waitlist: 0, places: 0 });
    const mx3 = await bed.idOf('persons', { user_name: 'mx3' });
    const notices = await tenantDb(bed.t, bed.acme).table('messages').where({ recipient_id: mx3, title: 'You have a seat: Seats event' });
    expect(notices).toHaveLength(1);
  });
});

describe('who may author events', () => {
  it('the owner creates and cancels, the instructor edits and locks but may not cancel, another manager gets 403', async () => {
    const [kari, tor, mona] = [await bed.as('kari'), await bed.as('tor'), await bed.as('mona')];
    const course = await bed.idOf('competences', { title: 'Calendar course' });
    const data = { competence_id: course, title: 'Access event', startdate: daysAhead(500, 9), enddate: daysAhead(500, 12), instructor_user_name: 'tor' };
    const denied = await mona.post('/api/events').send({ event_data: data });
    expect(denied.body).toMatchObject({ errorcode: 403 });
    const event = await createEvent(kari, data);
    const id = event.event_id;
    expect((await tor.put(`/api/events/${id}`).send({ event_data: { title: 'Access event, renamed' } })).body.events[0].title).toBe('Access event, renamed');
    expect((await tor.put(`/api/events/${id}/lock`)).body.events[0].locked).toBe(true);
    expect((await tor.put(`/api/events/${id}/unlock`)).body.events[0].locked).toBe(false);
    expect((await tor.put(`/api/events/${id}/cancel`)).body).toMatchObject({ errorcode: 403 });
    expect((await tor.delete(`/api/events/${id}`)).body).toMatchObject({ errorcode: 403 });
    for (const call of [
      mona.put(`/api/events/${id}`).send({ event_data: { title: 'x' } }),
      mona.put(`/api/events/${id}/lock`),
      mona.put(`/api/events/${id}/cancel`),
      mona.delete(`/api/events/${id}`),
    ]) {
      expect((await call).body).toMatchObject({ valid: false, errorcode: 403 });
    }
    const cancelled = await kari.put(`/api/events/${id}/cancel`).send({ reason: 'owner says so' });
    expect(cancelled.body.events[0]).toMatchObject({ cancelled: true, cancel_reason: 'owner says so' });
    // a superadmin may too
    await tenantDb(bed.t, bed.acme).table('persons').where({ user_name: 'mona' }).update({ superadmin: true });
    try {
      expect((await mona.put(`/api/events/${id}/lock`)).status).toBe(200);
    } finally {
      await tenantDb(bed.t, bed.acme).table('persons').where({ user_name: 'mona' }).update({ superadmin: false });
    }
  });

  it("another tenant's event id is a 404 on every authoring route", async () => {
    const globex = await importDemoTenant(bed.t, 'globex');
    const g = client(bed.t, globex.host, await loginCookie(bed.t, globex.host, 'admin', GLOBEX_PASSWORDS.admin));
    const admin = await bed.as('admin');
    const course = await bed.idOf('competences', { title: 'Calendar course' });
    let event = await createEvent(admin, { competence_id: course, startdate: daysAhead(600, 9), enddate: daysAhead(600, 10) });
    const globexMax = (await tenantDb(bed.t, globex).table('events').max('id as m').first())?.m ?? 0;
    while (event.event_id <= globexMax) event = await createEvent(admin, { competence_id: course, startdate: daysAhead(600, 9), enddate: daysAhead(600, 10) });
    const id = event.event_id;
    for (const res of [
      await g.put(`/api/events/${id}`).send({ event_data: { title: 'x' } }),
      await g.put(`/api/events/${id}/cancel`),
      await g.put(`/api/events/${id}/lock`),
      await g.delete(`/api/events/${id}`),
    ]) {
      expect(res.body).toMatchObject({ valid: false, errorcode: 404 });
    }
  });
});

describe('DELETE /api/events/[id], the changes feed and the audit log', () => {
  it('deletes an event nobody was signed on to (feed: deleted true); one with a signed-off sign-on is a 409', async () => {
    const admin = await bed.as('admin');
    const since = new Date(Date.now() - 1000).toISOString();
    const course = await bed.idOf('competences', { title: 'Calendar course' });
    const m1 = await bed.idOf('competences', { title: 'Calendar course: module 1' });
    await addPersons(bed, ['del1'], 'Operations North');
    const kept = await createEvent(admin, { competence_id: course, title: 'Kept event', startdate: daysAhead(700, 9), enddate: daysAhead(700, 15) });
    expect((await admin.post(`/api/personevents/${kept.event_id}`).send({ user_name: 'del1' })).status).toBe(200);
    expect((await admin.put(`/api/personevents/${kept.event_id}`).send({ user_name: 'del1', action: 'off' })).status).toBe(200);
    const refused = await admin.delete(`/api/events/${kept.event_id}`);
    expect(refused.body).toMatchObject({ valid: false, errorcode: 409 });
    expect(refused.body.message).toContain('cancel it instead');

    const gone = await createEvent(admin, { competence_id: course, title: 'Gone event', startdate: daysAhead(701, 9), enddate: daysAhead(701, 15) });
    const module = await createEvent(admin, { competence_id: m1, parent_id: gone.event_id, startdate: daysAhead(701, 10), enddate: daysAhead(701, 11) });
    const changed = await admin.put(`/api/events/${gone.event_id}`).send({ event_data: { description: 'soon gone' } });
    expect(changed.status).toBe(200);
    const del = await admin.delete(`/api/events/${gone.event_id}`);
    expect(del.status, JSON.stringify(del.body)).toBe(200);
    expect(del.body.events[0]).toMatchObject({ event_id: gone.event_id, title: 'Gone event' });
    expect((await admin.get(`/api/events/${gone.event_id}`)).body.errorcode).toBe(404);
    expect((await admin.get(`/api/events/${module.event_id}`)).body.errorcode).toBe(404);

    const feed = await admin.get(`/api/changes?Type=events&startdate=${encodeURIComponent(since)}&limit=100`);
    expect(feed.status).toBe(200);
    const rows = feed.body.changes as any[];
    expect(rows.find((r) => r.event_id === kept.event_id)).toMatchObject({ title: 'Kept event', deleted: false, cancelled: false });
    const deletions = rows.filter((r) => r.deleted);
    expect(deletions.map((r) => r.event_id).sort()).toEqual([gone.event_id, module.event_id].sort());
    expect(deletions.find((r) => r.event_id === gone.event_id)).toMatchObject({ title: 'Gone event', competence_id: course, parent_id: null, deleted: true });

    const audit = await admin.get(`/api/auditlog?type=event.created,event.updated,event.deleted&limit=100`);
    const entries = (audit.body.auditlog as any[]).filter((e) => e.subject === String(gone.event_id));
    expect(entries.map((e) => e.type).sort()).toEqual(['event.created', 'event.deleted', 'event.updated']);
    expect(entries.find((e) => e.type === 'event.updated')).toMatchObject({ actor: 'admin', details: { fields: ['description'] } });
  });
});
