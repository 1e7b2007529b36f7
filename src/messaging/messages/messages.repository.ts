import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenancy/tenant-db';
import { joinPersons, personNamed } from '../../people';
import { RECIPIENT_COLUMNS, type Recipient } from './recipients';

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

/** A delivery as read back: the relay's own column (priority) stays out. */
export const DELIVERY_COLUMNS = ['id', 'message_id', 'medium', 'address', 'state', 'attempts', 'last_error', 'provider_id', 'relayed_at', 'sent_at', 'updated_at'] as const;

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

export interface StoredMessage {
  message: MessageRow;
  deliveries: DeliveryRow[];
}

/** A delivery's `priority` (migration 150): password mail (1) is relayed ahead of the rest (0). */
const PRIORITY = `(case when m.kind = 'password' then 1 else 0 end)`;

/** The tail of both inserts: the message and its deliveries (CTEs m and d) as one row. */
const STORED = `select to_jsonb(m) - 'created_at' as message, m.created_at,
         coalesce((select jsonb_agg(to_jsonb(d) - 'updated_at' - 'relayed_at' - 'sent_at' - 'priority' order by d.medium) from d), '[]') as deliveries,
         (select max(d.updated_at) from d) as deliveries_updated_at`;

interface StoredRow {
  message: Omit<MessageRow, 'created_at'>;
  created_at: Date;
  deliveries: Omit<DeliveryRow, 'updated_at' | 'relayed_at' | 'sent_at'>[];
  deliveries_updated_at: Date;
}

function stored(row: StoredRow): StoredMessage {
  return {
    // timestamps come back as pg Dates, like every other read, not as JSON strings
    message: { ...row.message, created_at: row.created_at },
    deliveries: row.deliveries.map((d) => ({ ...d, relayed_at: null, sent_at: null, updated_at: row.deliveries_updated_at })),
  };
}

/** Messages and their deliveries; the deliveries not yet relayed are the outbox. */
@injectable()
export class MessagesRepository {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  /**
   * The message and its outbox rows in one statement (so both or neither, without a
   * transaction's extra round trips); returns both as stored. Both inserts are named statements
   * (TenantDb.prepared): planned once per connection, not per message.
   */
  async insert(m: NewMessage): Promise<StoredMessage> {
    const { deliveries, ...message } = m;
    const { rows } = await this.db.prepared(
      'messages.insert',
      `with m as (
         insert into ?? (kind, sender_id, recipient_id, title, text, cc, reply_to, send_medium)
         values (?, ?, ?, ?, ?, ?::text[], ?, ?) returning *),
       d as (
         insert into ?? (message_id, medium, address, priority)
         select m.id, x.medium, x.address, ${PRIORITY} from m, jsonb_to_recordset(?::jsonb) as x(medium text, address text)
         returning *)
       ${STORED} from m`,
      [
        this.db.ref('messages'),
        message.kind, message.sender_id, message.recipient_id, message.title, message.text, message.cc, message.reply_to, message.send_medium,
        this.db.ref('message_deliveries'),
        JSON.stringify(deliveries),
      ],
    );
    return stored(rows[0]);
  }

  /**
   * Finds the recipient by user name and stores the message with one delivery per medium to the
   * recipient's address, in one statement: one round trip where a lookup and an insert took two.
   * person: undefined when there is no such person; stored: undefined when the recipient lacks an
   * address for one of the media (nothing is written then).
   */
  async insertToUserName(userName: string, m: Omit<NewMessage, 'recipient_id' | 'deliveries'>, media: readonly Medium[]): Promise<{ person?: Recipient; stored?: StoredMessage }> {
    const { rows } = await this.db.prepared(
      'messages.insert-to-user',
      `with p as (?),
       want as (
         select x.medium, case x.medium when 'email' then p.email else p.mobile end as address
           from p, jsonb_array_elements_text(?::jsonb) with ordinality as x(medium, n) order by x.n),
       m as (
         insert into ?? (kind, sender_id, recipient_id, title, text, cc, reply_to, send_medium)
         select ?, ?, p.id, ?, ?, ?::text[], ?, ? from p
          where not exists (select 1 from want where coalesce(want.address, '') = '')
         returning *),
       d as (
         insert into ?? (message_id, medium, address, priority)
         select m.id, want.medium, want.address, ${PRIORITY} from m, want
         returning *)
       select to_jsonb(p) as person, s.* from p left join lateral (${STORED} from m) s on true`,
      [
        personNamed(this.db, userName, RECIPIENT_COLUMNS),
        JSON.stringify(media),
        this.db.ref('messages'),
        m.kind, m.sender_id, m.title, m.text, m.cc, m.reply_to, m.send_medium,
        this.db.ref('message_deliveries'),
      ],
    );
    const row = rows[0] as (StoredRow & { person: Recipient }) | undefined;
    if (!row) return {};
    return { person: row.person, stored: row.message ? stored(row) : undefined };
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
    return this.db.table('message_deliveries').whereIn('message_id', messageIds).orderBy('medium').select([...DELIVERY_COLUMNS]);
  }
}
