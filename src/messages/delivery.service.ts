import { inject, injectable } from 'tsyringe';
import { TENANT, TENANT_DB } from '../platform/tokens';
import type { TenantDb } from '../platform/tenancy/tenant-db';
import type { Tenant } from '../platform/tenancy/tenant';
import type { JobAttempt } from '../platform/queue/job-definition';
import type { DeliveryRow, MessageRow } from './messages.repository';
import { MailSender } from './mail-sender';
import { SmsSender } from './sms-sender';
import { PermanentDeliveryError, TemporaryDeliveryError } from './delivery-errors';
import { PASSWORD_PLACEHOLDER } from './message.presenter';
import { PendingPasswords } from './pending-passwords';

export type DeliveryOutcome = 'sent' | 'skipped' | 'failed' | 'retry';

/**
 * Sends one delivery at most once. The row moves queued -> sending in one conditional
 * UPDATE (the row lock): a second job for the same row, or a re-run after a crash, finds it
 * no longer queued and sends nothing.
 */
@injectable()
export class DeliveryService {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(MailSender) private readonly mail: MailSender,
    @inject(SmsSender) private readonly sms: SmsSender,
    @inject(PendingPasswords) private readonly passwords: PendingPasswords,
  ) {}

  private deliveries() {
    return this.db.table<DeliveryRow>('message_deliveries');
  }

  async deliver(deliveryId: number, attempt: JobAttempt): Promise<DeliveryOutcome> {
    const claimed = await this.claim(deliveryId);
    if (!claimed) return this.notClaimed(deliveryId);
    const { message, ...delivery } = claimed;
    try {
      const providerId = await this.send(delivery, message);
      await this.finish(deliveryId, { state: 'sent', provider_id: providerId, sent_at: this.db.fn.now(), last_error: null });
      return 'sent';
    } catch (err) {
      const reason = (err as Error).message;
      if (err instanceof TemporaryDeliveryError && attempt.number < attempt.max) {
        await this.finish(deliveryId, { state: 'queued', last_error: reason });
        return 'retry';
      }
      const final = err instanceof TemporaryDeliveryError ? `gave up after ${attempt.number} attempts: ${reason}` : reason;
      await this.finish(deliveryId, { state: 'failed', last_error: final });
      if (!(err instanceof PermanentDeliveryError) && !(err instanceof TemporaryDeliveryError)) throw err;
      return 'failed';
    }
  }

  /** queued -> sending, with the message it belongs to, in one round trip; undefined when not queued. */
  private async claim(deliveryId: number): Promise<(DeliveryRow & { message: MessageRow }) | undefined> {
    const { rows } = await this.db.raw(
      `with c as (
         update ?? set state = 'sending', attempts = attempts + 1, updated_at = now()
          where id = ? and state = 'queued' returning *)
       select c.*, to_jsonb(m) as message from c join ?? m on m.id = c.message_id`,
      [this.db.ref('message_deliveries'), deliveryId, this.db.ref('messages')],
    );
    return rows[0];
  }

  /** A job for a row that is not queued: sent or failed already, or a send was cut off midway. */
  private async notClaimed(deliveryId: number): Promise<DeliveryOutcome> {
    const interrupted = await this.deliveries()
      .where({ id: deliveryId, state: 'sending' })
      .update({
        state: 'failed',
        last_error: 'interrupted while sending (worker stopped); not retried so that it is never delivered twice',
        updated_at: this.db.fn.now(),
      });
    return interrupted ? 'failed' : 'skipped';
  }

  private async finish(id: number, change: Record<string, unknown>): Promise<void> {
    await this.db.table('message_deliveries').where({ id }).update({ ...change, updated_at: this.db.fn.now() });
  }

  private async send(d: DeliveryRow, m: MessageRow): Promise<string> {
    const text = m.kind === 'password' ? m.text.replaceAll(PASSWORD_PLACEHOLDER, await this.passwords.issue(m.recipient_id)) : m.text;
    if (d.medium === 'email') {
      const from = this.tenant.config.get('mail.from');
      if (!from) throw new PermanentDeliveryError('the tenant has no sender address (config item mail.from)');
      return this.mail.send({ from, to: d.address, cc: m.cc, replyTo: m.reply_to, subject: m.title, text });
    }
    const from = this.tenant.config.get('sms.from');
    if (!from) throw new PermanentDeliveryError('the tenant has no SMS sender (config item sms.from)');
    return this.sms.send({ from, to: d.address, body: `${m.title}\n${text}` });
  }
}
