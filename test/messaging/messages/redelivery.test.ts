import { expect, it } from 'vitest';
import { asAcme } from '../../support/login';
import { useMailTestbed, waitFor } from './delivery-peers';
import { TenantResolver } from '../../../src/platform/tenant-scope/tenant-resolver';
import { openTenantScope } from '../../../src/platform/tenant-scope/request-scope';
import { TENANT_DB } from '../../../src/platform/tokens';
import { PendingPasswords } from '../../../src/people';

// Short reconciliation period, so a delivery left behind is relayed again within the test.
const bed = useMailTestbed({}, { OUTBOX_REDELIVER_AFTER_SECONDS: '1' });

async function tenantScope() {
  const tenant = (await bed.t.container.resolve(TenantResolver).byTenantId(bed.acme.tenantId))!;
  return openTenantScope(bed.t.container, tenant);
}

async function sendAndWait(title: string) {
  const admin = await asAcme(bed.t, bed.acme.host, 'admin');
  const res = await admin.post('/api/messages').send({ user_name: 'ola', title, text: 'Redelivery test.' });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const mail = await waitFor(title, () => bed.smtp.mails.find((m) => m.headers.subject === title));
  return { admin, delivery: res.body.messages[0].deliveries[0], messageId: res.body.messages[0].message_id as number, mail };
}

const copies = (title: string) => bed.smtp.mails.filter((m) => m.headers.subject === title);

it('every mail carries a Message-ID made of the tenant and the delivery, on the domain of mail.from', async () => {
  const { mail } = await sendAndWait('Message-ID check');
  expect(mail.headers['message-id']).toMatch(new RegExp(`^<delivery-t${bed.acme.tenantId}-\\d+@acme\\.example>$`));
});

it('a delivery whose job finished or vanished without sending it is relayed again, with the same Message-ID', async () => {
  const { mail, messageId } = await sendAndWait('Lost job');
  const db = (await tenantScope()).resolve(TENANT_DB);
  // as after a Redis flush or a job that used up its attempts: relayed long ago, still queued
  await db
    .table('message_deliveries')
    .where({ message_id: messageId })
    .update({ state: 'queued', relayed_at: db.raw("now() - interval '1 hour'") });
  await waitFor('the resend', () => copies('Lost job').length >= 2);
  expect(copies('Lost job').map((m) => m.headers['message-id'])).toEqual([mail.headers['message-id'], mail.headers['message-id']]);
  await waitFor('sent again', async () => (await db.table('message_deliveries').where({ message_id: messageId }).first()).state === 'sent');
});

it('a row left sending by a killed worker is sent again, not failed', async () => {
  const { messageId, mail } = await sendAndWait('Killed worker');
  const db = (await tenantScope()).resolve(TENANT_DB);
  await db
    .table('message_deliveries')
    .where({ message_id: messageId })
    .update({ state: 'sending', relayed_at: db.raw("now() - interval '1 hour'"), updated_at: db.raw("now() - interval '1 hour'") });
  await waitFor('the resend', () => copies('Killed worker').length >= 2);
  expect(copies('Killed worker')[1].headers['message-id']).toBe(mail.headers['message-id']);
});

it('an undelivered message older than MESSAGE_DELIVERY_MAX_AGE_HOURS fails with the reason expired', async () => {
  const { messageId, admin } = await sendAndWait('Too old');
  const db = (await tenantScope()).resolve(TENANT_DB);
  await db
    .table('messages')
    .where({ id: messageId })
    .update({ created_at: db.raw("now() - interval '49 hours'") });
  await db
    .table('message_deliveries')
    .where({ message_id: messageId })
    .update({ state: 'queued', relayed_at: db.raw("now() - interval '1 hour'") });
  const d = await waitFor('expired', async () => {
    const row = (await admin.get(`/api/messages/${messageId}`)).body.messages[0].deliveries[0];
    return row.state === 'failed' ? row : null;
  });
  expect(d.reason).toMatch(/^expired/);
  expect(copies('Too old')).toHaveLength(1);
});

it('every password generated for one delivery stays usable; a new delivery replaces them', async () => {
  const scope = await tenantScope();
  const db = scope.resolve(TENANT_DB);
  const pending = scope.resolve(PendingPasswords);
  const ola = await db.table('persons').where({ user_name: 'ola' }).first('id');
  const now = new Date();
  const first = (await pending.issue(ola.id, 9001, now))!;
  const second = (await pending.issue(ola.id, 9001, now))!;
  const row = async () => db.table('persons').where({ id: ola.id }).first();
  expect(await pending.matches(await row(), first)).toBeTruthy();
  expect(await pending.matches(await row(), second)).toBeTruthy();
  const other = (await pending.issue(ola.id, 9002, now))!;
  expect(await pending.matches(await row(), first)).toBeNull();
  expect(await pending.matches(await row(), other)).toBeTruthy();
  await pending.discard(ola.id);
});
