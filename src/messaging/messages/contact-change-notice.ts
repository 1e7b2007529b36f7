import { inject, injectable } from 'tsyringe';
import type { Transaction } from '../../platform/tenancy/unit-of-work';
import { TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenancy/tenant';
import type { ContactChange, ContactChangeNotifier } from '../../people';
import { MessagesRepository } from './messages.repository';
import { OutboxSignal } from '../outbox/outbox-signal';

const LABEL = { password: 'password', email: 'e-mail address', mobile: 'mobile number' } as const;

/**
 * The notice to a person's previous e-mail address, through the outbox like every other mail.
 * It names no new value: the old mailbox may no longer be the person's.
 */
@injectable()
export class ContactChangeNotice implements ContactChangeNotifier {
  constructor(
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(OutboxSignal) private readonly signal: OutboxSignal,
  ) {}

  async write(tx: Transaction, change: ContactChange): Promise<void> {
    const what = change.fields.map((f) => LABEL[f]).join(', ').replace(/, ([^,]*)$/, ' and $1');
    const was = change.fields.length > 1 ? 'were' : 'was';
    const who = change.changedBy === change.userName ? 'you (signed in as yourself)' : `${change.changedBy}`;
    await tx.get(MessagesRepository).insert({
      kind: 'message',
      sender_id: null,
      recipient_id: change.personId,
      title: `The ${what} of your account ${was} changed`,
      text:
        `The ${what} of your account ${change.userName} ${was} changed by ${who} at ${new Date().toISOString()}.\n\n` +
        'If this was not you, contact your administrator at once: someone may be using your account.',
      cc: [],
      reply_to: null,
      send_medium: 'email',
      deliveries: [{ medium: 'email', address: change.oldEmail }],
    });
    tx.afterCommit(() => this.signal.notify(this.tenant.id));
  }
}
