import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../platform/tokens';
import type { TenantDb } from '../platform/tenancy/tenant-db';

export type Medium = 'email' | 'sms';
export type SendMedium = 'email' | 'sms' | 'both';
export type DeliveryState = 'queued' | 'sending' | 'sent' | 'failed';

export interface MessageRow {
  id: number;
  kind: 'message' | 'password';
  sender_id: number | null;
  recipient_id: number;
  title: string;
  text: string;
  cc: string[];
  reply_to: string | null;
  send_medium: SendMedium;
  created_at: Date;
}

export interface DeliveryRow {
  id: number;
  message_id: number;
  medium: Medium;
  address: string;
  state: DeliveryState;
  attempts: number;
  last_error: string | null;
  provider_id: string | null;
  relayed_at: Date | null;
  sent_at: Date | null;
  updated_at: Date;
}

export interface MessageWithNames extends MessageRow {
  recipient_user_name: string;
  sender_user_name: string | null;
}

export interface NewMessage {
  kind: MessageRow['kind'];
  sender_id: number | null;
  recipient_id: number;
  title: string;
  text: string;
  cc: string[];
  reply_to: string | null;
  send_medium: SendMedium;
  deliveries: { medium: Medium; address: string }[];
}

/** Messages and their deliveries; the deliveries not yet relayed are the outbox. */
@injectable()
export class MessagesRepository {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  /** The message and its outbox rows in one transaction: both or neither. */
  async insert(m: NewMessage): Promise<number> {
    return this.db.transaction(async (trx) => {
      const { deliveries, ...message } = m;
      const [row] = await trx.table('messages').insert(message).returning('id');
      await trx.table('message_deliveries').insert(deliveries.map((d) => ({ ...d, message_id: row.id })));
      return row.id as number;
    });
  }

  private withNames() {
    return this.db
      .table('messages as m')
      .join('persons as r', 'r.id', 'm.recipient_id')
      .leftJoin('persons as s', 's.id', 'm.sender_id')
      .select('m.*', 'r.user_name as recipient_user_name', 's.user_name as sender_user_name');
  }

  async find(id: number): Promise<MessageWithNames | undefined> {
    return this.withNames().where('m.id', id).first();
  }

  async listForRecipient(recipientId: number, limit: number, offset: number): Promise<MessageWithNames[]> {
    return this.withNames().where('m.recipient_id', recipientId).orderBy('m.id', 'desc').limit(limit).offset(offset);
  }

  async deliveriesOf(messageIds: number[]): Promise<DeliveryRow[]> {
    if (messageIds.length === 0) return [];
    return this.db.table('message_deliveries').whereIn('message_id', messageIds).orderBy('medium');
  }
}
