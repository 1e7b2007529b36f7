import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoTenant, TestApp } from '../../support/test-app';
import { asAcme } from '../../support/login';
import { waitFor } from '../messages/delivery-peers';
import { idOf, tenantDb } from '../../courses/events/events-support';
import type { WebhookReceiver } from './webhook-receiver';
import { startWebhookTestbed, type Admin, type WebhookTestbed } from './webhook-testbed';
import { OUTBOUND_EVENT_TYPES } from '../../../src/platform/outbound/outbound-events';
import { REDIS } from '../../../src/platform/tokens';
import { tenantKeyPrefix } from '../../../src/platform/redis/redis-keys';

let bed: WebhookTestbed | undefined;
let t: TestApp;
let acme: DemoTenant;
let other: DemoTenant;
let receiver: WebhookReceiver;
const createEndpoint = (admin: Admin, path: string, events?: readonly string[]) => bed!.createEndpoint(admin, path, events);
const attempts = (admin: Admin, id: number) => bed!.attempts(admin, id);

beforeAll(async () => {
  bed = await startWebhookTestbed();
  ({ t, acme, other, receiver } = bed);
});
afterAll(async () => bed?.stop());

describe('webhook endpoints', () => {
  it('superusers manage them; others get 403; the secret is shown only on create and rotation', async () => {
    const [admin, kari, ola] = await Promise.all([asAcme(t, acme.host, 'admin'), asAcme(t, acme.host, 'kari'), asAcme(t, acme.host, 'ola')]);
    const created = await admin
      .post('/api/webhooks')
      .send({ url: receiver.url('/ok/crud'), events: ['person.created', 'person.updated'], description: 'HR system' });
    expect(created.status).toBe(200);
    const w = created.body.webhooks[0];
    expect(w).toMatchObject({
      url: receiver.url('/ok/crud'),
      events: ['person.created', 'person.updated'],
      description: 'HR system',
      enabled: true,
      disabled_reason: null,
    });
    expect(w.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(w.secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);

    const id = w.webhook_id;
    for (const who of [kari, ola]) {
      const calls = [
        who.post('/api/webhooks').send({ url: receiver.url('/ok/x'), events: ['person.created'] }),
        who.get('/api/webhooks'),
        who.get(`/api/webhooks/${id}`),
        who.put(`/api/webhooks/${id}`).send({ enabled: 0 }),
        who.delete(`/api/webhooks/${id}`),
        who.post(`/api/webhooks/${id}/rotate_secret`),
        who.post(`/api/webhooks/${id}/test`),
        who.get(`/api/webhooks/${id}/deliveries`),
      ];
      for (const [i, res] of (await Promise.all(calls)).entries()) expect(res.body, `call ${i}`).toMatchObject({ valid: false, errorcode: 403 });
    }

    const listed = await admin.get('/api/webhooks');
    expect(listed.body.webhooks.map((x: any) => x.webhook_id)).toContain(id);
    expect(listed.body.webhooks.every((x: any) => !('secret' in x))).toBe(true);
    expect((await admin.get(`/api/webhooks/${id}`)).body.webhooks[0]).not.toHaveProperty('secret');

    const changed = await admin.put(`/api/webhooks/${id}`).send({ events: ['personevent.signed_on'], description: 'LMS', enabled: 0 });
    expect(changed.body.webhooks[0]).toMatchObject({
      events: ['personevent.signed_on'],
      description: 'LMS',
      enabled: false,
      disabled_reason: 'disabled by admin',
    });
    expect(changed.body.webhooks[0]).not.toHaveProperty('secret');

    const rotated = await admin.post(`/api/webhooks/${id}/rotate_secret`);
    expect(rotated.body.webhooks[0].secret).toMatch(/^whsec_/);
    expect(rotated.body.webhooks[0].secret).not.toBe(w.secret);
    const overlap = Date.parse(rotated.body.webhooks[0].previous_secret_until) - Date.now();
    expect(overlap).toBeGreaterThan(23 * 3600_000);
    expect(overlap).toBeLessThanOrEqual(24 * 3600_000);

    expect((await admin.post('/api/webhooks').send({ url: 'ftp://example.com/x', events: ['person.created'] })).body).toMatchObject({
      errorcode: 420,
      parameter: 'url',
    });
    expect((await admin.post('/api/webhooks').send({ url: receiver.url('/ok/x'), events: ['person.deleted'] })).body).toMatchObject({
      errorcode: 420,
      parameter: 'events[0]',
      message: expect.stringContaining('must be event types: person.created'),
    });
    expect((await admin.post('/api/webhooks').send({ url: receiver.url('/ok/x') })).body).toMatchObject({ errorcode: 419, parameter: 'events' });
    expect((await admin.post('/api/webhooks').send({ url: 'https://user:pw@example.com/x', events: ['person.created'] })).body).toMatchObject({
      errorcode: 420,
    });

    expect((await admin.delete(`/api/webhooks/${id}`)).body.webhooks[0].webhook_id).toBe(id);
    expect((await admin.get(`/api/webhooks/${id}`)).body).toMatchObject({ errorcode: 404 });
    expect((await admin.post(`/api/webhooks/${id}/rotate_secret`)).body).toMatchObject({ errorcode: 404 });

    const log = await admin.get('/api/auditlog?type=webhook.created,webhook.updated,webhook.secret_rotated,webhook.deleted');
    expect(
      log.body.auditlog
        .filter((e: any) => e.subject === String(id))
        .map((e: any) => e.type)
        .sort(),
    ).toEqual(['webhook.created', 'webhook.deleted', 'webhook.secret_rotated', 'webhook.updated']);
  });
});

describe('webhook secrets and the idempotency store', () => {
  it('an answer carrying a signing secret is never kept: a repeat is 409 already done, not a replay of the secret nor a second endpoint', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const body = { url: receiver.url('/ok/idem'), events: ['person.created'], description: 'idempotent' };
    const first = await admin.post('/api/webhooks').set('Idempotency-Key', 'webhook-create-1').send(body);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const rotated = await admin.post(`/api/webhooks/${first.body.webhooks[0].webhook_id}/rotate_secret`).set('Idempotency-Key', 'webhook-rotate-1');
    expect(rotated.status).toBe(200);
    const redis = t.container.resolve(REDIS);
    for (const key of await redis.keys(`${tenantKeyPrefix({ id: acme.tenantId }, redis)}idem:*`)) {
      const text = (await redis.get(key)) ?? '';
      expect(text).not.toContain('whsec_');
    }
    // a repeat neither replays the secret nor registers again: 409 "already done" (issue 40)
    const repeat = await admin.post('/api/webhooks').set('Idempotency-Key', 'webhook-create-1').send(body);
    expect(repeat.status).toBe(409);
    expect(repeat.body.message).toMatch(/already done.*rotate to see a new secret/);
    expect(repeat.body.message).not.toContain('whsec_');
    const rotatedAgain = await admin.post(`/api/webhooks/${first.body.webhooks[0].webhook_id}/rotate_secret`).set('Idempotency-Key', 'webhook-rotate-1');
    expect(rotatedAgain.status).toBe(409);
    const again = await admin.post('/api/webhooks').set('Idempotency-Key', 'webhook-create-2').send(body);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.webhooks[0].webhook_id).not.toBe(first.body.webhooks[0].webhook_id);
    for (const w of [first, again]) expect((await admin.delete(`/api/webhooks/${w.body.webhooks[0].webhook_id}`)).status).toBe(200);
  });
});

describe('webhook deliveries', () => {
  it('every event type arrives signed (checked with standardwebhooks), once, as {type, timestamp, tenant, data}', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const path = '/ok/all';
    await createEndpoint(admin, path);
    const db = tenantDb(t, acme);
    const org = await idOf(t, acme, 'organisations', { name: 'Operations North' });
    const role = await idOf(t, acme, 'roles', { ref: 'office' });
    const course = await idOf(t, acme, 'competences', { title: 'Leadership 101' });
    const [row] = await db
      .table('events')
      .insert({ competence_id: course, title: 'Webhook day', starts_at: '2034-03-01T08:00:00Z', ends_at: '2034-03-01T15:00:00Z', max_participants: 1 })
      .returning('id');

    const ok = (res: any) => expect(res.status, JSON.stringify(res.body)).toBe(200);
    ok(await admin.post('/api/persons').send({ organisation_id: org, role_id: role, person_data: { user_name: 'wendy', email: 'wendy@acme.example' } }));
    ok(await admin.put('/api/persons/wendy').send({ person_data: { firstname: 'Wendy' } }));
    ok(await admin.put(`/api/personcompetences/${course}`).send({ user_name: 'ola', date: '2030-01-15' }));
    ok(await admin.delete(`/api/personcompetences/${course}?user_name=ola`));
    const nilsOn = await admin.post(`/api/personevents/${row.id}`).send({ user_name: 'nils' });
    ok(nilsOn);
    ok(await admin.post(`/api/personevents/${row.id}`).send({ user_name: 'ola' }));
    ok(await admin.put(`/api/personevents/${row.id}`).send({ user_name: 'nils', action: 'off' }));
    // no SMTP_URL: the mail fails for good ("not configured")
    ok(await admin.post('/api/messages').send({ user_name: 'siri', title: 'Webhook check', text: 'hello', send_medium: 'email' }));
    // the calendar's (issue 35): created, updated, cancelled, and another one deleted
    const created = await admin
      .post('/api/events')
      .send({ event_data: { competence_id: course, title: 'Webhook run', startdate: '2034-04-01T08:00Z', enddate: '2034-04-01T15:00Z' } });
    ok(created);
    const calendarEvent = created.body.events[0].event_id;
    ok(await admin.put(`/api/events/${calendarEvent}`).send({ event_data: { title: 'Webhook run, renamed' } }));
    ok(await admin.put(`/api/events/${calendarEvent}/cancel`).send({ reason: 'webhook check' }));
    const doomed = await admin
      .post('/api/events')
      .send({ event_data: { competence_id: course, title: 'Webhook gone', startdate: '2034-05-01T08:00Z', enddate: '2034-05-01T15:00Z' } });
    ok(await admin.delete(`/api/events/${doomed.body.events[0].event_id}`));

    // the catalogue's (issue 35): created, updated, deleted
    const competence = await admin.post('/api/competences').send({ competence_data: { title: 'Webhook skill', type: 'skill' } });
    ok(competence);
    const competenceId = competence.body.competences[0].competence_id;
    ok(await admin.put(`/api/competences/${competenceId}`).send({ competence_data: { title: 'Webhook skill, renamed' } }));
    ok(await admin.delete(`/api/competences/${competenceId}`));

    // issue 36 (results): a result recorded for a participant of a started event
    const [past] = await db
      .table('events')
      .insert({ competence_id: course, title: 'Webhook results', starts_at: '2020-03-01T08:00:00Z', ends_at: '2020-03-01T15:00:00Z' })
      .returning('id');
    await db.table('person_events').insert({ person_id: await idOf(t, acme, 'persons', { user_name: 'siri' }), event_id: past.id, status: 'signed_on' });
    ok(await admin.put(`/api/participants/${past.id}/siri`).send({ met: 1, passed: 40 }));

    // the person lifecycle (issue 36): deactivated, reactivated
    ok(await admin.put('/api/persons/wendy/deactivate'));
    ok(await admin.put('/api/persons/wendy/reactivate'));

    // issue 36's types are added here as their producers land
    const ISSUE_36: string[] = [];
    const expected = OUTBOUND_EVENT_TYPES.filter((ty) => !ISSUE_36.includes(ty));
    const got = await waitFor('all event types', () => {
      const types = new Set(receiver.at(path).map((r) => r.body.type));
      return expected.every((ty) => types.has(ty)) ? receiver.at(path) : null;
    });
    const ids = got.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of got) {
      expect(r.verifiedWith, r.body.type).toEqual(['current']);
      expect(r.status).toBe(200);
      expect(r.id).toMatch(/^msg_[0-9a-f]{32}$/);
      expect(Math.abs(Number(r.timestamp) - Date.now() / 1000)).toBeLessThan(300);
      expect(Object.keys(r.body)).toEqual(['type', 'timestamp', 'tenant', 'data']);
      expect(r.body.tenant).toBe(acme.slug);
      expect(new Date(r.body.timestamp).toISOString()).toBe(r.body.timestamp);
      // an event's or a competence's data is the object (no person); every other type's names its person
      if (!/^(event|competence)\./.test(r.body.type)) expect(typeof r.body.data.user_name, r.body.type).toBe('string');
    }
    const one = (type: string) => got.find((r) => r.body.type === type)!.body.data;
    expect(one('person.created')).toMatchObject({ user_name: 'wendy', email: 'wendy@acme.example', organisation_id: org });
    expect(one('person.updated')).toMatchObject({ user_name: 'wendy', firstname: 'Wendy', changed: ['firstname'] });
    expect(one('person.deactivated')).toMatchObject({ user_name: 'wendy', organisation_id: org, deactivated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect(one('person.reactivated')).toMatchObject({ user_name: 'wendy', organisation_id: org });
    expect(one('personcompetence.registered')).toMatchObject({
      user_name: 'ola',
      competence_id: course,
      title: 'Leadership 101',
      date: '2030-01-15',
      registered_by: 'admin',
    });
    expect(one('personcompetence.deleted')).toMatchObject({ user_name: 'ola', competence_id: course });
    // deliveries run in parallel: arrival order is not creation order
    expect(
      got
        .filter((r) => r.body.type === 'personevent.signed_on')
        .map((r) => [r.body.data.user_name, r.body.data.status])
        .sort(),
    ).toEqual([
      ['nils', 'signed_on'],
      ['ola', 'waitlist'],
    ]);
    // the sign-on's webhook carries the very object its answer showed (built once, not read back)
    expect(got.find((r) => r.body.type === 'personevent.signed_on' && r.body.data.user_name === 'nils')!.body.data).toEqual(nilsOn.body.personevents[0]);
    expect(one('personevent.signed_off')).toMatchObject({ user_name: 'nils', event_id: row.id, status: 'signed_off' });
    expect(one('personevent.result_recorded')).toMatchObject({
      user_name: 'siri',
      event_id: past.id,
      met: true,
      passed: 40,
      pass_reached: false,
      recorded_by: 'admin',
      registered_competence_ids: [],
    });
    expect(one('personevent.promoted')).toMatchObject({ user_name: 'ola', event_id: row.id, status: 'signed_on', waitlist: false });
    expect(
      got
        .filter((r) => r.body.type === 'event.created')
        .map((r) => r.body.data.title)
        .sort(),
    ).toEqual(['Webhook gone', 'Webhook run']);
    expect(got.find((r) => r.body.type === 'event.created' && r.body.data.event_id === calendarEvent)!.body.data).toMatchObject({
      title: 'Webhook run',
      competence_id: course,
      cancelled: false,
    });
    expect(one('event.updated')).toMatchObject({ event_id: calendarEvent, title: 'Webhook run, renamed' });
    expect(one('event.cancelled')).toMatchObject({ event_id: calendarEvent, cancelled: true, reason: 'webhook check' });
    expect(one('event.deleted')).toMatchObject({ event_id: doomed.body.events[0].event_id, title: 'Webhook gone', deleted: true });
    // the seat notice to ola fails too
    const failed = await waitFor("siri's failed message", () =>
      receiver.at(path).find((r) => r.body.type === 'message.failed' && r.body.data.user_name === 'siri'),
    );
    expect(failed.body.data).toMatchObject({ title: 'Webhook check', medium: 'email', address: expect.stringContaining('@') });
    expect(failed.body.data.error).toContain('not configured');
  });

  it('a receiver that fails twice then succeeds gets the event acknowledged once, under one webhook-id; attempts are listed newest first', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const path = '/flaky/once';
    const w = await createEndpoint(admin, path, ['person.updated']);
    expect((await admin.put('/api/persons/ola').send({ person_data: { jobtitle: 'Flaky tester' } })).status).toBe(200);
    await waitFor('acknowledged', () => receiver.at(path).some((r) => r.status === 200));
    const got = receiver.at(path);
    expect(got.map((r) => r.status)).toEqual([503, 503, 200]);
    expect(new Set(got.map((r) => r.id)).size).toBe(1);
    expect(new Set(got.map((r) => r.raw)).size).toBe(1);
    expect(got.every((r) => r.verifiedWith.includes('current'))).toBe(true);

    const list = await waitFor('three attempts listed', async () => {
      const a = await attempts(admin, w.webhook_id);
      return a.length === 3 && a[0].delivery_state === 'delivered' ? a : null;
    });
    expect(list.map((a) => a.attempt)).toEqual([3, 2, 1]);
    expect(list.map((a) => a.status_code)).toEqual([200, 503, 503]);
    expect(list.map((a) => a.error)).toEqual([null, 'HTTP 503: refused (503)', 'HTTP 503: refused (503)']);
    expect(new Set(list.map((a) => a.delivery_id)).size).toBe(1);
    expect(list.every((a) => a.event_id === got[0].id && a.type === 'person.updated' && a.duration_ms >= 0 && a.next_attempt_at === null)).toBe(true);
    expect(Date.parse(list[0].at)).toBeGreaterThanOrEqual(Date.parse(list[2].at));
    expect((await admin.get(`/api/webhooks/${w.webhook_id}`)).body.webhooks[0]).toMatchObject({ failing_since: null, waiting_deliveries: 0 });
  });

  it('for 24 h after a rotation both secrets sign; then only the new one', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const path = '/ok/rotate';
    const w = await createEndpoint(admin, path, ['person.updated']);
    receiver.expect(path, w.secret, 'old');
    const rotated = (await admin.post(`/api/webhooks/${w.webhook_id}/rotate_secret`)).body.webhooks[0];
    receiver.expect(path, rotated.secret, 'current');
    await admin.put('/api/persons/siri').send({ person_data: { jobtitle: 'Rotation one' } });
    const first = await waitFor('first event', () => receiver.at(path)[0]);
    expect(first.signature.split(' ')).toHaveLength(2);
    expect(first.verifiedWith.sort()).toEqual(['current', 'old']);

    // the 24 h have passed
    await tenantDb(t, acme)
      .table('webhook_endpoints')
      .where({ id: w.webhook_id })
      .update({ previous_secret_until: new Date(Date.now() - 1000) });
    expect((await admin.get(`/api/webhooks/${w.webhook_id}`)).body.webhooks[0].previous_secret_until).toBeNull();
    await admin.put('/api/persons/siri').send({ person_data: { jobtitle: 'Rotation two' } });
    const second = await waitFor('second event', () => receiver.at(path)[1]);
    expect(second.signature.split(' ')).toHaveLength(1);
    expect(second.verifiedWith).toEqual(['current']);
  });
});

describe('tenant isolation', () => {
  it("one tenant's endpoints, events and deliveries are never seen by or sent for another", async () => {
    const [adminA, adminB] = await Promise.all([asAcme(t, acme.host, 'admin'), asAcme(t, other.host, 'admin')]);
    const a = await createEndpoint(adminA, '/ok/tenant-a', ['person.updated']);
    const b = await createEndpoint(adminB, '/ok/tenant-b', ['person.updated']);
    expect(a.webhook_id).toBeGreaterThan(b.webhook_id);

    // the same user name in both tenants (one document imported twice)
    await adminA.put('/api/persons/kari').send({ person_data: { jobtitle: 'Only in A' } });
    await adminB.put('/api/persons/kari').send({ person_data: { jobtitle: 'Only in B' } });
    const fromA = await waitFor('A', () => receiver.at('/ok/tenant-a')[0]);
    const fromB = await waitFor('B', () => receiver.at('/ok/tenant-b')[0]);
    expect(fromA.body).toMatchObject({ tenant: acme.slug, data: { jobtitle: 'Only in A' } });
    expect(fromB.body).toMatchObject({ tenant: other.slug, data: { jobtitle: 'Only in B' } });
    expect(receiver.received.filter((r) => r.body?.data?.jobtitle === 'Only in B').map((r) => r.path)).toEqual(['/ok/tenant-b']);
    expect(receiver.received.filter((r) => r.body?.data?.jobtitle === 'Only in A').every((r) => r.body.tenant === acme.slug)).toBe(true);

    expect((await adminB.get('/api/webhooks')).body.webhooks.map((w: any) => w.url)).toEqual([receiver.url('/ok/tenant-b')]);
    for (const res of [
      await adminB.get(`/api/webhooks/${a.webhook_id}`),
      await adminB.get(`/api/webhooks/${a.webhook_id}/deliveries`),
      await adminB.put(`/api/webhooks/${a.webhook_id}`).send({ enabled: 0 }),
      await adminB.post(`/api/webhooks/${a.webhook_id}/test`),
      await adminB.post(`/api/webhooks/${a.webhook_id}/rotate_secret`),
      await adminB.delete(`/api/webhooks/${a.webhook_id}`),
    ]) {
      expect(res.body).toMatchObject({ valid: false, errorcode: 404 });
    }
    const bAttempts = await attempts(adminB, b.webhook_id);
    expect(bAttempts.map((x) => x.event_id)).toEqual([fromB.id]);
    expect((await attempts(adminA, a.webhook_id)).map((x) => x.event_id)).toEqual([fromA.id]);
    expect((await adminA.get(`/api/webhooks/${a.webhook_id}`)).body.webhooks[0].enabled).toBe(true);
  });
});
