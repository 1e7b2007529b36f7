import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenancy/tenant-db';
import type { Transaction } from '../../platform/tenancy/unit-of-work';
import { joinPersons } from '../../people';
import type { PersonDataHolder, PersonKey } from '../../platform/privacy/personal-data';

/** Messages to and from a person: exported with their delivery states; texts and addresses to them blanked on erasure. */
@injectable()
export class MessageData implements PersonDataHolder {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  async export(person: PersonKey) {
    const personId = person.id;
    const msgs = await joinPersons(joinPersons(this.db.table('messages as m'), 's', 'm.sender_id', 'left'), 'r', 'm.recipient_id')
      .where((w) => w.where('m.recipient_id', personId).orWhere('m.sender_id', personId))
      .select('m.id as message_id', 'm.kind', 'r.user_name as user_name', 's.user_name as sender_user_name', 'm.recipient_id',
        'm.title', 'm.text', 'm.cc', 'm.reply_to', 'm.send_medium', 'm.created_at')
      .orderBy('m.id');
    const ids = msgs.map((m: { message_id: number }) => m.message_id);
    const deliveries = ids.length
      ? await this.db.table('message_deliveries').whereIn('message_id', ids)
        .select('message_id', 'medium', 'address', 'state', 'attempts', 'last_error as reason', 'sent_at').orderBy('id')
      : [];
    const messages = msgs.map(({ recipient_id, ...m }: { recipient_id: number; message_id: number; kind: string; text: string }) => ({
      ...m,
      // a mailed password is never stored in clear, but say so rather than show the placeholder text
      text: m.kind === 'password' ? '********' : m.text,
      direction: recipient_id === personId ? 'received' : 'sent',
      deliveries: deliveries.filter((d: { message_id: number }) => d.message_id === m.message_id).map(({ message_id, ...d }: { message_id: number }) => d),
    }));
    return { messages };
  }

  async erase(tx: Transaction, personId: number): Promise<void> {
    const received = tx.get(TENANT_DB).table('messages').where('recipient_id', personId).select('id');
    await tx.get(TENANT_DB).table('message_deliveries').whereIn('message_id', received).update({ address: '', last_error: null });
    await tx.get(TENANT_DB).table('messages').where('recipient_id', personId).update({ title: '', text: '', cc: '{}', reply_to: null });
  }
}
