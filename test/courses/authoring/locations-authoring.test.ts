import { describe, expect, it } from 'vitest';
import { useCalendarBed, createEvent, daysAhead } from './authoring-support';
import { tenantDb } from '../events/events-support';

const bed = useCalendarBed();

describe('POST, PUT and DELETE /api/locations', () => {
  it('a superuser creates a location (bracket form too), changes only the fields given and deletes it while unused', async () => {
    const admin = await bed.as('admin');
    const created = await admin
      .post('/api/locations')
      .send({ location_data: { name: 'Room A', address: 'Storgata 1, 2nd floor', capacity: 12, latitude: 59.91, longitude: 10.75 } });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.message).toBe('location created');
    const room = created.body.locations[0];
    expect(room).toMatchObject({ name: 'Room A', address: 'Storgata 1, 2nd floor', capacity: 12, latitude: 59.91, longitude: 10.75 });
    expect((await admin.get(`/api/locations/${room.location_id}`)).body.locations[0]).toEqual(room);

    const form = await admin.post('/api/locations').type('form').send('location_data[name]=Room+B&location_data[capacity]=4');
    expect(form.body.locations[0]).toMatchObject({ name: 'Room B', capacity: 4, address: null, latitude: null });

    const changed = await admin.put(`/api/locations/${room.location_id}`).send({ location_data: { capacity: 20, address: '' } });
    expect(changed.body.locations[0]).toEqual({ ...room, capacity: 20, address: null });

    const deleted = await admin.delete(`/api/locations/${form.body.locations[0].location_id}`);
    expect(deleted.status).toBe(200);
    expect((await admin.get(`/api/locations/${form.body.locations[0].location_id}`)).body.errorcode).toBe(404);
    const audit = await admin.get('/api/auditlog?type=location.created,location.updated,location.deleted&limit=100');
    const types = (audit.body.auditlog as any[])
      .filter((e) => e.subject === String(room.location_id))
      .map((e) => e.type)
      .sort();
    expect(types).toEqual(['location.created', 'location.updated']);
  });

  it('validates ranges and names (420), a missing name (419), unknown keys (420)', async () => {
    const admin = await bed.as('admin');
    const bad = async (data: unknown, code: number, parameter: string) => {
      const res = await admin.post('/api/locations').send({ location_data: data });
      expect(res.body, JSON.stringify(res.body)).toMatchObject({ valid: false, errorcode: code });
      expect(res.body.message).toContain(parameter);
    };
    await bad({ name: 'X', latitude: 91 }, 420, 'location_data[latitude]');
    await bad({ name: 'X', longitude: -180.5 }, 420, 'location_data[longitude]');
    await bad({ name: 'X', capacity: -1 }, 420, 'location_data[capacity]');
    await bad({ name: 'X', capacity: 'many' }, 420, 'location_data[capacity]');
    await bad({ name: '' }, 420, 'location_data[name]');
    await bad({ address: 'nowhere' }, 419, 'location_data[name]');
    await bad({ name: 'X', floor: 2 }, 420, 'location_data');
    expect((await admin.put('/api/locations/999999').send({ location_data: { name: 'Y' } })).body.errorcode).toBe(404);
  });

  it('a location an event names cannot be deleted, nor get fewer seats than an upcoming event needs (409)', async () => {
    const admin = await bed.as('admin');
    const room = (await admin.post('/api/locations').send({ location_data: { name: 'Busy room', capacity: 30 } })).body.locations[0];
    const course = await bed.idOf('competences', { title: 'Calendar course' });
    const event = await createEvent(admin, {
      competence_id: course,
      title: 'Busy event',
      startdate: daysAhead(200, 9),
      enddate: daysAhead(200, 12),
      location_id: room.location_id,
      max_participants: 25,
    });
    const del = await admin.delete(`/api/locations/${room.location_id}`);
    expect(del.body).toMatchObject({ valid: false, errorcode: 409 });
    expect(del.body.message).toContain('used by 1 event(s)');
    const shrink = await admin.put(`/api/locations/${room.location_id}`).send({ location_data: { capacity: 10 } });
    expect(shrink.body).toMatchObject({ valid: false, errorcode: 409 });
    expect(shrink.body.message).toContain(`event ${event.event_id} "Busy event" with max_participants 25`);
    expect((await admin.put(`/api/locations/${room.location_id}`).send({ location_data: { capacity: 25 } })).status).toBe(200);
  });

  it('only superusers and superadmins may (403 for a manager and an owner)', async () => {
    const [kari, mona] = [await bed.as('kari'), await bed.as('mona')];
    const oslo = await bed.idOf('locations', { name: 'Oslo HQ, room Fjord' });
    expect((await kari.post('/api/locations').send({ location_data: { name: 'Mine' } })).body.errorcode).toBe(403);
    expect((await kari.put(`/api/locations/${oslo}`).send({ location_data: { name: 'Mine' } })).body.errorcode).toBe(403);
    expect((await kari.delete(`/api/locations/${oslo}`)).body.errorcode).toBe(403);
    await tenantDb(bed.t, bed.acme).table('persons').where({ user_name: 'mona' }).update({ superadmin: true });
    try {
      expect((await mona.post('/api/locations').send({ location_data: { name: 'Superadmin room' } })).status).toBe(200);
    } finally {
      await tenantDb(bed.t, bed.acme).table('persons').where({ user_name: 'mona' }).update({ superadmin: false });
    }
  });
});
