import { inject, injectable } from 'tsyringe';
import { ENV, TENANT, TENANT_DB } from '../../platform/tokens';
import type { Env } from '../../platform/config/env';
import type { TenantDb } from '../../platform/tenancy/tenant-db';
import { UnitOfWork } from '../../platform/tenancy/unit-of-work';
import type { Tenant } from '../../platform/tenancy/tenant';
import type { DeliveryRow, MessageRow } from './messages.repository';
import { MailSender } from './mail-sender';
import { SmsSender } from './sms-sender';
import { PermanentDeliveryError, TemporaryDeliveryError } from './delivery-errors';
import { PASSWORD_PLACEHOLDER } from './message.presenter';
import { PendingPasswords } from '../../people';
import { OUTBOUND_EVENTS, type OutboundEvents } from '../../platform/outbound/outbound-events';
import { messageFailedData } from './message-failed-event';

export type DeliveryOutcome = 'sent' | 'skipped' | 'failed' | 'retry';

/** `<delivery-t<tenant>-<delivery>@<domain of mail.from>>`: the same for every attempt of one delivery, so a receiver can tell a resend from a new message. */
export function deliveryMessageId(tenantId: number, deliveryId: number, from: string): string {
  const domain = /@([^>\s]+)>?\s*$/.exec(from)?.[1] ?? 'localhost';
  return `<delivery-t${tenantId}-${deliveryId}@${domain}>`;
}

/**
 * Sends one delivery at least once. The row moves queued -> sending in one conditional
 * UPDATE (the row lock), so two jobs for one row do not send at once. A row left `sending`
 * longer than OUTBOX_REDELIVER_AFTER_SECONDS belongs to a worker that died mid-send: it is
 * claimed again and sent again (with the same Message-ID), because losing a message is
 * worse than a recognisable duplicate. Giving up is decided by the message's age
 * (MESSAGE_DELIVERY_MAX_AGE_HOURS), never by BullMQ's attempt budget.
 */
@injectable()
export class DeliveryService {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(MailSender) private readonly mail: MailSender,
    @inject(SmsSender) private readonly sms: SmsSender,
    @inject(PendingPasswords) private readonly passwords: PendingPasswords,
    @inject(ENV) private readonly env: Env,
    @inject(OUTBOUND_EVENTS) private readonly events: OutboundEvents,
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
  ) {}

  async deliver(deliveryId: number): Promise<DeliveryOutcome> {
    const claimed = await this.claim(deliveryId);
    // sent or failed already, or another worker is sending it right now
    if (!claimed) return 'skipped';
    const { message, expired, ...delivery } = claimed;
    if (expired) {
      await this.fail(deliveryId, expiredReason(this.env, delivery.last_error));
      return 'failed';
    }
    try {
      const providerId = await this.send(delivery, message);
      await this.finish(deliveryId, { state: 'sent', provider_id: providerId, sent_at: this.db.fn.now(), last_error: null });
      return 'sent';
    } catch (err) {
      const reason = (err as Error).message;
      if (err instanceof TemporaryDeliveryError) {
        await this.finish(deliveryId, { state: 'queued', last_error: reason });
        return 'retry';
      }
      await this.fail(deliveryId, reason);
      if (!(err instanceof PermanentDeliveryError)) throw err;
      return 'failed';
    }
  }

  /** queued (or abandoned sending) -> sending, with its message and whether it is too old, in one round trip. */
  private async claim(deliveryId: number): Promise<(DeliveryRow & { message: MessageRow; expired: boolean }) | undefined> {
    const { rows } = await this.db.raw(
      `with c as (
         update ?? set state = 'sending', attempts = attempts + 1, updated_at = now()
          where id = ? and (state = 'queued' or (state = 'sending' and updated_at < now() - make_interval(secs => ?)))
          returning *)
       select c.*, to_jsonb(m) as message, m.created_at < now() - make_interval(secs => ?) as expired
         from c join ?? m on m.id = c.message_id`,
      [this.db.ref('message_deliveries'), deliveryId, this.env.OUTBOX_REDELIVER_AFTER_SECONDS, maxAgeSeconds(this.env), this.db.ref('messages')],
    );
    return rows[0];
  }

  /** Failed for good, with message.failed for the webhooks in the same transaction. */
  private async fail(id: number, reason: string): Promise<void> {
    await this.uow.run(async (tx) => {
      await tx.db.table('message_deliveries').where({ id }).update({ state: 'failed', last_error: reason, updated_at: tx.db.fn.now() });
      await this.events.record(tx, 'message.failed', () => messageFailedData(tx.db, id));
    });
    await this.events.committed();
  }

  private async finish(id: number, change: Record<string, unknown>): Promise<void> {
    await this.db.table('message_deliveries').where({ id }).update({ ...change, updated_at: this.db.fn.now() });
  }

  private async send(d: DeliveryRow, m: MessageRow): Promise<string> {
    const text = m.kind === 'password' ? m.text.replaceAll(PASSWORD_PLACEHOLDER, await this.passwords.issue(m.recipient_id, d.id)) : m.text;
    if (d.medium === 'email') {
      const from = this.tenant.config.get('mail.from');
      if (!from) throw new PermanentDeliveryError('the tenant has no sender address (config item mail.from)');
      const messageId = deliveryMessageId(this.tenant.id, d.id, from);
      return this.mail.send({ from, to: d.address, cc: m.cc, replyTo: m.reply_to, subject: m.title, text, messageId });
    }
    const from = this.tenant.config.get('sms.from');
    if (!from) throw new PermanentDeliveryError('the tenant has no SMS sender (config item sms.from)');
    return this.sms.send({ from, to: d.address, body: `${m.title}\n${text}` });
  }
}

export function maxAgeSeconds(env: Env): number {
  return Math.round(env.MESSAGE_DELIVERY_MAX_AGE_HOURS * 3600);
}

export function expiredReason(env: Env, lastError: string | null): string {
  return `expired: not delivered within ${env.MESSAGE_DELIVERY_MAX_AGE_HOURS} h (MESSAGE_DELIVERY_MAX_AGE_HOURS)${lastError ? `; last error: ${lastError}` : ''}`;
}
