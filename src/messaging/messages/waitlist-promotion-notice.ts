import { inject, injectable } from 'tsyringe';
import { TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import { TRANSACTION, type Transaction } from '../../platform/tenant-scope/unit-of-work';
import { MessagesRepository } from './messages.repository';
import { OutboxSignal } from '../outbox/outbox-signal';
import { CalendarNotice } from './calendar-notice';
import { NoticeRenderer } from '../notices/notice-renderer';

/** Who moved from the wait list onto a seat of which event, and how to reach them. */
export interface SeatPromotion {
  recipient: { id: number; email: string | null; mobile: string | null; language?: string | null; user_name?: string };
  eventTitle: string;
  startsAt: Date;
  endsAt?: Date | null;
  location?: string | null;
  /** The METHOD:REQUEST calendar the e-mail carries (issue 39), built by the flow; none: plain text. */
  calendar?: string | null;
}

/**
 * A person moved from the wait list onto a seat is told by e-mail (or SMS), through the outbox.
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

  async write({ recipient, eventTitle, startsAt, endsAt, location, calendar }: SeatPromotion): Promise<void> {
    const medium = recipient.email ? 'email' : recipient.mobile ? 'sms' : null;
    // nobody to tell: the promotion stands without a notice
    if (!medium) return;
    const iso = (d: Date | null | undefined) => (d ? new Date(d).toISOString() : null);
    const { title, text, html } = await this.tx.get(NoticeRenderer).render(
      'waitlist_promotion',
      { user_name: recipient.user_name ?? '', event_title: eventTitle, starts_at: iso(startsAt), ends_at: iso(endsAt), location: location ?? null, has_calendar: !!calendar && !!recipient.email },
      recipient.language,
    );
    if (calendar) {
      await this.tx.get(CalendarNotice).write([{ recipient, title, text, html, calendar }]);
      return;
    }
    await this.tx.get(MessagesRepository).insert({
      kind: 'message',
      sender_id: null,
      recipient_id: recipient.id,
      title,
      text,
      html,
      cc: [],
      reply_to: null,
      send_medium: medium,
      deliveries: [{ medium, address: (medium === 'email' ? recipient.email : recipient.mobile)! }],
    });
    this.tx.afterCommit(() => this.signal.notify(this.tenant.id));
  }
}
