import { inject, injectable } from 'tsyringe';
import { TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import { TRANSACTION, type Transaction } from '../../platform/tenant-scope/unit-of-work';
import { MessagesRepository } from './messages.repository';
import { OutboxSignal } from '../outbox/outbox-signal';
import { CalendarNotice } from './calendar-notice';
import { NotificationPreferences } from '../notices/notification-preferences';
import { sendMediumOf } from '../notices/notice-media';
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

  async write({ recipient, eventTitle, startsAt, endsAt, location, calendar }: SeatPromotion): Promise<void> {
    const deliveries = (await this.tx.get(NotificationPreferences).deliveries([recipient], 'waitlist_promotion')).get(recipient.id) ?? [];
    // nobody to tell (no address, or turned off): the promotion stands without a notice
    if (!deliveries.length) return;
    const iso = (d: Date | null | undefined) => (d ? new Date(d).toISOString() : null);
    const { title, text, html } = await this.tx.get(NoticeRenderer).render(
      'waitlist_promotion',
      {
        user_name: recipient.user_name ?? '',
        event_title: eventTitle,
        starts_at: iso(startsAt),
        ends_at: iso(endsAt),
        location: location ?? null,
        has_calendar: !!calendar && deliveries.some((d) => d.medium === 'email'),
      },
      recipient.language,
    );
    if (calendar) {
      await this.tx.get(CalendarNotice).write([{ type: 'waitlist_promotion', recipient, title, text, html, calendar }]);
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
      send_medium: sendMediumOf(deliveries),
      deliveries,
    });
    this.tx.afterCommit(() => this.signal.notify(this.tenant.id));
  }
}
