/** The rows of messages and message_deliveries, and how an insert returns them (`STORED`, `stored`). */

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
  /** The iCalendar object (METHOD REQUEST or CANCEL) an e-mail carries (migration 320); null for other messages. */
  calendar?: string | null;
  /** The HTML part of a notice e-mail (issue 39, migration 340), sent with `text` as multipart/alternative; null for other messages. */
  html?: string | null;
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
  /** The W3C traceparent of the request that wrote it (migration 370; tracing on), continued by the worker. */
  traceparent?: string | null;
}

export interface MessageWithNames extends MessageRow {
  recipient_user_name: string;
  sender_user_name: string | null;
}

/** A message to store: its row without what the database assigns, and a delivery per medium. */
export interface NewMessage extends Omit<MessageRow, 'id' | 'created_at'> {
  deliveries: { medium: Medium; address: string }[];
}

export interface StoredMessage {
  message: MessageRow;
  deliveries: DeliveryRow[];
}

/** The tail of both inserts: the message and its deliveries (CTEs m and d) as one row. */
/** A delivery's `priority` (migration 150), from its message (CTE m): password mail (1) is relayed ahead of the rest (0). */
export const PRIORITY = `(case when m.kind = 'password' then 1 else 0 end)`;

/** A delivery as read back: the relay's own column (priority) stays out. */
export const DELIVERY_COLUMNS = [
  'id',
  'message_id',
  'medium',
  'address',
  'state',
  'attempts',
  'last_error',
  'provider_id',
  'relayed_at',
  'sent_at',
  'updated_at',
] as const;

export const STORED = `select to_jsonb(m) - 'created_at' as message, m.created_at,
         coalesce((select jsonb_agg(to_jsonb(d) - 'updated_at' - 'relayed_at' - 'sent_at' - 'priority' - 'traceparent' order by d.medium) from d), '[]') as deliveries,
         (select max(d.updated_at) from d) as deliveries_updated_at`;

export interface StoredRow {
  message: Omit<MessageRow, 'created_at'>;
  created_at: Date;
  deliveries: Omit<DeliveryRow, 'updated_at' | 'relayed_at' | 'sent_at'>[];
  deliveries_updated_at: Date;
}

export function stored(row: StoredRow): StoredMessage {
  return {
    // timestamps come back as pg Dates, like every other read, not as JSON strings
    message: { ...row.message, created_at: row.created_at },
    deliveries: row.deliveries.map((d) => ({ ...d, relayed_at: null, sent_at: null, updated_at: row.deliveries_updated_at })),
  };
}
