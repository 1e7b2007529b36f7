import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenancy/tenant-db';
import { joinPersons } from '../../people';

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

  /**
   * The message and its outbox rows in one statement (so both or neither, without a
   * transaction's extra round trips); returns both as stored.
   */
  async insert(m: NewMessage): Promise<{ message: MessageRow; deliveries: DeliveryRow[] }> {
    const { deliveries, ...message } = m;
    const { rows } = await this.db.raw(
      `with m as (
         insert into ?? (kind, sender_id, recipient_id, title, text, cc, reply_to, send_medium)
         values (?, ?, ?, ?, ?, ?::text[], ?, ?) returning *),
       d as (
         insert into ?? (message_id, medium, address)
         select m.id, x.medium, x.address from m, jsonb_to_recordset(?::jsonb) as x(medium text, address text)
         returning *)
       select to_jsonb(m) - 'created_at' as message, m.created_at,
              coalesce((select jsonb_agg(to_jsonb(d) - 'updated_at' - 'relayed_at' - 'sent_at' order by d.medium) from d), '[]') as deliveries,
              (select max(d.updated_at) from d) as deliveries_updated_at
         from m`,
      [
        this.db.ref('messages'),
        message.kind, message.sender_id, message.recipient_id, message.title, message.text, message.cc, message.reply_to, message.send_medium,
        this.db.ref('message_deliveries'),
        JSON.stringify(deliveries),
      ],
    );
    const [row] = rows as { message: Omit<MessageRow, 'created_at'>; created_at: Date; deliveries: Omit<DeliveryRow, 'updated_at' | 'relayed_at' | 'sent_at'>[]; deliveries_updated_at: Date }[];
    return {
      // timestamps come back as pg Dates, like every other read, not as JSON strings
      message: { ...row.message, created_at: row.created_at },
      deliveries: row.deliveries.map((d) => ({ ...d, relayed_at: null, sent_at: null, updated_at: row.deliveries_updated_at })),
    };
  }

  private withNames() {
    return joinPersons(joinPersons(this.db.table('messages as m'), 'r', 'm.recipient_id'), 's', 'm.sender_id', 'left')
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
