import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoTenant, TestApp } from '../../support/test-app';
import { asAcme } from '../../support/login';
import { waitFor } from '../messages/delivery-peers';
import { tenantDb } from '../../courses/events/events-support';
import type { WebhookReceiver } from './webhook-receiver';
import { startWebhookTestbed, type Admin, type WebhookTestbed } from './webhook-testbed';
import { writeWebhookEvent } from '../../../src/messaging/webhooks/webhook-event-writer';

let bed: WebhookTestbed | undefined;
let t: TestApp;
let acme: DemoTenant;
let receiver: WebhookReceiver;
const createEndpoint = (admin: Admin, path: string, events?: readonly string[]) => bed!.createEndpoint(admin, path, events);
const attempts = (admin: Admin, id: number) => bed!.attempts(admin, id);

beforeAll(async () => {
  bed = await startWebhookTestbed();
  ({ t, acme, receiver } = bed);
});
afterAll(async () => bed?.stop());

describe('webhook retries and failures', () => {
  it('redirects are not followed, a silent receiver times out, and both are retried', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const redirect = await createEndpoint(admin, '/redirect/r', ['person.updated']);
    const slow = await createEndpoint(admin, '/slow/s', ['person.updated']);
    await admin.put('/api/persons/nils').send({ person_data: { jobtitle: 'Redirected' } });
    const r = await waitFor('two redirect attempts', async () => {
      const a = await attempts(admin, redirect.webhook_id);
      return a.length >= 2 ? a : null;
    });
    expect(r[r.length - 1]).toMatchObject({ attempt: 1, status_code: 302, error: 'redirect not followed (HTTP 302 to /ok/redirected)' });
    expect(receiver.at('/ok/redirected')).toEqual([]);
    const s = await waitFor('timed-out attempt', async () => (await attempts(admin, slow.webhook_id)).find((a) => a.attempt === 1));
    expect(s).toMatchObject({ attempt: 1, status_code: null, error: 'timed out after 1.5 s', delivery_state: 'pending' });
    expect(Date.parse(s.next_attempt_at)).toBeGreaterThan(Date.parse(s.at));
    for (const w of [redirect, slow]) await admin.delete(`/api/webhooks/${w.webhook_id}`);
  });

  it('a delivery is given up once it is 24 h old', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const w = await createEndpoint(admin, '/fail/old', ['person.updated']);
    expect((await admin.post(`/api/webhooks/${w.webhook_id}/test`)).body.message).toMatch(/^test event msg_\w+ queued$/);
    await waitFor('first attempt', async () => (await attempts(admin, w.webhook_id)).length > 0);
    await tenantDb(t, acme)
      .table('webhook_deliveries')
      .where({ endpoint_id: w.webhook_id })
      .update({ created_at: new Date(Date.now() - 25 * 3600_000) });
    const last = await waitFor('given up', async () => {
      const a = await attempts(admin, w.webhook_id);
      return a[0]?.delivery_state === 'failed' ? a[0] : null;
    });
    expect(last).toMatchObject({ type: 'webhook.test', status_code: 500, next_attempt_at: null });
    const row = await tenantDb(t, acme).table('webhook_deliveries').where({ endpoint_id: w.webhook_id }).first();
    expect(row.last_error).toBe('gave up after 24 h; last error: HTTP 500: refused (500)');
    await admin.delete(`/api/webhooks/${w.webhook_id}`);
  });

  it('an endpoint failing for 5 days is disabled, gets no new events, and starts afresh when enabled', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const w = await createEndpoint(admin, '/fail/dead', ['person.updated']);
    const db = tenantDb(t, acme);
    // every attempt has failed since six days ago
    await db
      .table('webhook_endpoints')
      .where({ id: w.webhook_id })
      .update({ failing_since: new Date(Date.now() - 6 * 86_400_000) });
    await admin.post(`/api/webhooks/${w.webhook_id}/test`);
    const disabled = await waitFor('disabled', async () => {
      const e = (await admin.get(`/api/webhooks/${w.webhook_id}`)).body.webhooks[0];
      return e.enabled ? null : e;
    });
    expect(disabled.disabled_reason).toMatch(/^every attempt failed since .* \(5 days\); re-enable with PUT enabled=1$/);
    expect((await attempts(admin, w.webhook_id))[0]).toMatchObject({ delivery_state: 'failed' });
    expect((await admin.post(`/api/webhooks/${w.webhook_id}/test`)).body).toMatchObject({ errorcode: 409 });
    await admin.put('/api/persons/ola').send({ person_data: { jobtitle: 'Nobody listens' } });
    expect(await db.table('webhook_deliveries').where({ endpoint_id: w.webhook_id }).count('* as n').first()).toEqual({ n: '1' });
    const enabled = (await admin.put(`/api/webhooks/${w.webhook_id}`).send({ enabled: 1 })).body.webhooks[0];
    expect(enabled).toMatchObject({ enabled: true, disabled_reason: null, failing_since: null });
    await admin.delete(`/api/webhooks/${w.webhook_id}`);
  });

  it('a waiting delivery of an endpoint a superuser disabled is not sent, and says so', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const w = await createEndpoint(admin, '/fail/paused', ['person.updated']);
    await admin.post(`/api/webhooks/${w.webhook_id}/test`);
    await waitFor('first attempt', async () => (await attempts(admin, w.webhook_id)).length > 0);
    await admin.put(`/api/webhooks/${w.webhook_id}`).send({ enabled: 0 });
    const last = await waitFor('not sent', async () => {
      const a = await attempts(admin, w.webhook_id);
      return a[0]?.delivery_state === 'failed' ? a : null;
    });
    // attempts made before the PUT landed reached the receiver; the one after it did not
    const [notSent, ...sent] = last;
    expect(notSent).toMatchObject({ attempt: sent.length + 1, status_code: null, error: 'not sent: the endpoint is disabled' });
    expect(sent.every((a) => a.status_code === 500)).toBe(true);
    expect(receiver.at('/fail/paused')).toHaveLength(sent.length);
    await admin.delete(`/api/webhooks/${w.webhook_id}`);
  });

  it('a delivery whose queued job was lost, or whose worker died mid-attempt, is relayed again by the sweep', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const path = '/ok/lost';
    const w = await createEndpoint(admin, path, ['person.updated']);
    const db = tenantDb(t, acme);
    // as if relayed an hour ago and the job then vanished from Redis (no signal, no job)
    const { uid } = await db.transaction((trx) => writeWebhookEvent(trx, { slug: acme.slug }, 'person.updated', { user_name: 'ola' }, [w.webhook_id]));
    const past = new Date(Date.now() - 3600_000);
    await db.table('webhook_deliveries').where({ endpoint_id: w.webhook_id }).update({ relayed_at: past, next_attempt_at: past });
    const got = await waitFor('relayed again', () => receiver.at(path)[0]);
    expect(got).toMatchObject({ id: uid, status: 200, verifiedWith: ['current'] });

    // as if a worker died an hour ago in the middle of attempt 1
    const dead = await db.transaction((trx) => writeWebhookEvent(trx, { slug: acme.slug }, 'person.updated', { user_name: 'kari' }, [w.webhook_id]));
    await db
      .table('webhook_deliveries')
      .where({ event_id: dead.eventId })
      .update({ state: 'sending', attempts: 1, updated_at: past, relayed_at: past, next_attempt_at: past });
    const resent = await waitFor('claimed again', () => receiver.at(path).find((r) => r.id === dead.uid));
    expect(resent).toMatchObject({ status: 200, verifiedWith: ['current'] });
    const listed = await waitFor('listed', async () => (await attempts(admin, w.webhook_id)).find((a) => a.event_id === dead.uid));
    expect(listed).toMatchObject({ attempt: 2, status_code: 200, delivery_state: 'delivered' });
  });
});
