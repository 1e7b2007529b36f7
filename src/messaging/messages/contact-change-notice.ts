import { inject, injectable } from 'tsyringe';
import { TRANSACTION, type Transaction } from '../../platform/tenant-scope/unit-of-work';
import { TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import { MessagesRepository } from './messages.repository';
import { OutboxSignal } from '../outbox/outbox-signal';
import { NotificationPreferences } from '../notices/notification-preferences';
import { sendMediumOf } from '../notices/notice-media';
import { NoticeRenderer } from '../notices/notice-renderer';

/** A change of a person's password, e-mail or mobile, told to the address they had before. */
export interface ContactChange {
  personId: number;
  userName: string;
  /** The addresses the notice goes to: the e-mail and mobile before the change (by the person's preference for contact_changed). */
  oldEmail: string | null;
  oldMobile?: string | null;
  fields: ('email' | 'mobile' | 'password')[];
  changedBy: string;
  /** BCP 47: the person's language (null: the tenant's). */
  language?: string | null;
}

/**
 * The notice to a person's previous e-mail address (or mobile, by their preference), through the outbox like every other mail, so
 * a taken-over account is noticed (ASVS 2.2.3). It names no new value: the old mailbox may no
 * longer be the person's. Got by `tx.get(ContactChangeNotice)` in the change's transaction: the
 * notice commits with the change or not at all, and the delivery is woken after the commit.
 */
@injectable()
export class ContactChangeNotice {
  constructor(
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(OutboxSignal) private readonly signal: OutboxSignal,
    @inject(TRANSACTION) private readonly tx: Transaction,
  ) {}

  async write(change: ContactChange): Promise<void> {
    // a security notice: never `none`; e-mail (else SMS) by default, to the addresses before the change
    const to = { id: change.personId, email: change.oldEmail, mobile: change.oldMobile ?? null };
    const deliveries = (await this.tx.get(NotificationPreferences).deliveries([to], 'contact_changed')).get(to.id) ?? [];
    if (!deliveries.length) return;
    const notice = await this.tx.get(NoticeRenderer).render(
      'contact_changed',
      {
        user_name: change.userName,
        fields: change.fields,
        changed_by: change.changedBy,
        changed_by_self: change.changedBy === change.userName,
        changed_at: new Date().toISOString(),
      },
      change.language,
    );
    await this.tx.get(MessagesRepository).insert({
      kind: 'message',
      sender_id: null,
      recipient_id: change.personId,
      title: notice.title,
      text: notice.text,
      html: notice.html,
      cc: [],
      reply_to: null,
      send_medium: sendMediumOf(deliveries),
      deliveries,
    });
    this.tx.afterCommit(() => this.signal.notify(this.tenant.id));
  }
}
