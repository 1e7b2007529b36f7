import { inject, injectable } from 'tsyringe';
import { TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenancy/tenant';
import type { Transaction } from '../../platform/tenancy/unit-of-work';
import { PersonDirectory } from '../../people';
import type { Promotion, WaitlistNotifier } from '../../courses';
import { MessagesRepository } from './messages.repository';
import { RECIPIENT_COLUMNS } from './recipients';
import { OutboxSignal } from '../outbox/outbox-signal';

/** A person moved from the wait list onto a seat is told by e-mail (or SMS), through the outbox. */
@injectable()
export class WaitlistPromotionNotifier implements WaitlistNotifier {
  constructor(
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(OutboxSignal) private readonly signal: OutboxSignal,
  ) {}

  async notifyPromoted(tx: Transaction, _personEventId: number, promotion: Promotion): Promise<void> {
    const row = { title: promotion.eventTitle, starts_at: promotion.startsAt };
    const person = await tx.get(PersonDirectory).find({ id: promotion.personId }, RECIPIENT_COLUMNS);
    const medium = person?.email ? 'email' : person?.mobile ? 'sms' : null;
    // nobody to tell: the promotion stands without a notice
    if (!person || !medium) return;
    await tx.get(MessagesRepository).insert({
      kind: 'message',
      sender_id: null,
      recipient_id: person.id,
      title: `You have a seat: ${row.title}`,
      text: `A seat became free and you were moved from the wait list onto "${row.title}", starting ${new Date(row.starts_at).toISOString().slice(0, 16).replace('T', ' ')} UTC.`,
      cc: [],
      reply_to: null,
      send_medium: medium,
      deliveries: [{ medium, address: (medium === 'email' ? person.email : person.mobile)! }],
    });
    tx.afterCommit(() => this.signal.notify(this.tenant.id));
  }
}
