import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { Transaction } from '../../platform/tenant-scope/unit-of-work';

/** A message to or from the person, with the user names a flow joined on. */
export interface MessageOfPerson {
  message_id: number;
  kind: string;
  recipient_id: number;
  user_name: string;
  sender_user_name: string | null;
  title: string;
  text: string;
  cc: string[];
  reply_to: string | null;
  send_medium: string;
  created_at: Date;
}

/**
 * Messages to and from a person, for the rights of access and erasure: exported with their delivery
 * states, texts and addresses to them blanked on erasure. The export names the other party, which is
 * people's: the flow that registers the GDPR holder (src/flows/messages/message-personal-data.ts)
 * joins the names onto `messagesOf` and hands the rows to `export`.
 */
@injectable()
export class MessageData {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  /** The person's messages as `messages as m` (m.sender_id, m.recipient_id), in id order: MessageOfPerson once the names are on. */
  messagesOf(personId: number): Knex.QueryBuilder {
    return this.db
      .table('messages as m')
      .where((w) => void w.where('m.recipient_id', personId).orWhere('m.sender_id', personId))
      .select('m.id as message_id', 'm.kind', 'm.recipient_id', 'm.title', 'm.text', 'm.cc', 'm.reply_to', 'm.send_medium', 'm.created_at')
      .orderBy('m.id');
  }

  /** The export section: the messages with their deliveries (one read for all). */
  async export(personId: number, msgs: MessageOfPerson[]): Promise<{ messages: Record<string, unknown>[] }> {
    const ids = msgs.map((m) => m.message_id);
    const deliveries = ids.length
      ? await this.db
          .table('message_deliveries')
          .whereIn('message_id', ids)
          .select('message_id', 'medium', 'address', 'state', 'attempts', 'last_error as reason', 'sent_at')
          .orderBy('id')
      : [];
    const messages = msgs.map((m) => ({
      message_id: m.message_id,
      kind: m.kind,
      user_name: m.user_name,
      sender_user_name: m.sender_user_name,
      title: m.title,
      // a mailed password is never stored in clear, but say so rather than show the placeholder text
      text: m.kind === 'password' ? '********' : m.text,
      cc: m.cc,
      reply_to: m.reply_to,
      send_medium: m.send_medium,
      created_at: m.created_at,
      direction: m.recipient_id === personId ? 'received' : 'sent',
      deliveries: deliveries.filter((d: { message_id: number }) => d.message_id === m.message_id).map(({ message_id, ...d }: { message_id: number }) => d),
    }));
    return { messages };
  }

  async erase(tx: Transaction, personId: number): Promise<void> {
    const received = tx.get(TENANT_DB).table('messages').where('recipient_id', personId).select('id');
    await tx.get(TENANT_DB).table('message_deliveries').whereIn('message_id', received).update({ address: '', last_error: null });
    await tx
      .get(TENANT_DB)
      .table('messages')
      .where('recipient_id', personId)
      .update({ title: '', text: '', cc: '{}', reply_to: null, calendar: null, html: null });
  }
}
