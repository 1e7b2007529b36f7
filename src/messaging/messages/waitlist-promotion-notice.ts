import { inject, injectable } from 'tsyringe';
import { TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import { TRANSACTION, type Transaction } from '../../platform/tenant-scope/unit-of-work';
import { MessagesRepository } from './messages.repository';
import { OutboxSignal } from '../outbox/outbox-signal';
import { CalendarNotice } from './calendar-notice';
import { NotificationPreferences } from '../notices/notification-preferences';
import { sendMediumOf } from '../notices/notice-media';

/** Who moved from the wait list onto a seat of which event, and how to reach them. */
export interface SeatPromotion {
  recipient: { id: number; email: string | null; mobile: string | null };
  eventTitle: string;
  startsAt: Date;
  /** The METHOD:REQUEST calendar the e-mail carries (issue 39), built by the flow; none: plain text. */
  calendar?: string | null;
}

/**
 * A person moved from the wait list onto a seat is told through the outbox, by their preference
 * for waitlist_promotion (e-mail, SMS, both or none; a missing address falls back to the other).
 * Reached through the sign-off's transaction (`tx.get`), so the promotion and its notice commit
 * together; the delivery is woken after the commit.
 */
@injectable()
export class WaitlistPromotionNotice {
  constructor(
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(OutboxSignal) private readonly signal: OutboxSignal,
    @inject(TRANSACTION) private readonly tx: Transaction,
  ) {}

  async write({ recipient, eventTitle, startsAt, calendar }: SeatPromotion): Promise<void> {
    const deliveries = (await this.tx.get(NotificationPreferences).deliveries([recipient], 'waitlist_promotion')).get(recipient.id) ?? [];
    // nobody to tell (no address, or turned off): the promotion stands without a notice
    if (!deliveries.length) return;
    const title = `You have a seat: ${eventTitle}`;
    const text = `A seat became free and you were moved from the wait list onto "${eventTitle}", starting ${new Date(startsAt).toISOString().slice(0, 16).replace('T', ' ')} UTC.`;
    if (calendar) {
      await this.tx.get(CalendarNotice).write([{ type: 'waitlist_promotion', recipient, title, text: `${text} The calendar entry is attached.`, calendar }]);
      return;
    }
    await this.tx.get(MessagesRepository).insert({
      kind: 'message',
      sender_id: null,
      recipient_id: recipient.id,
      title,
      text,
      cc: [],
      reply_to: null,
      send_medium: sendMediumOf(deliveries),
      deliveries,
    });
    this.tx.afterCommit(() => this.signal.notify(this.tenant.id));
  }
}
