import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { Medium } from './message-rows';
import { currentTraceparent } from '../../platform/tracing/tracing';

/** One notice the product writes itself (no sender), with its one delivery. */
export interface SystemNoticeRow {
  recipient_id: number;
  title: string;
  text: string;
  medium: Medium;
  address: string;
  /** An iCalendar object sent with an e-mail (calendar invites), else null. */
  calendar: string | null;
}

/**
 * Writes the notices and their deliveries in one statement: ids drawn first, so each message's
 * delivery names it. The caller is in the change's transaction and signals the outbox after commit.
 */
export async function insertSystemNotices(db: TenantDb, rows: readonly SystemNoticeRow[]): Promise<void> {
  if (!rows.length) return;
  await db.raw(
    `with x as (
       select nextval(pg_get_serial_sequence(?, 'id'))::int as id, r.* from jsonb_to_recordset(?::jsonb)
         as r(recipient_id int, title text, text text, medium text, address text, calendar text)),
     m as (
       insert into ?? (id, kind, sender_id, recipient_id, title, text, send_medium, calendar)
       select id, 'message', null, recipient_id, title, text, medium, calendar from x returning id)
     insert into ?? (message_id, medium, address, priority, traceparent) select x.id, x.medium, x.address, 0, ?::text from x join m on m.id = x.id`,
    [db.ref('messages'), JSON.stringify(rows), db.ref('messages'), db.ref('message_deliveries'), currentTraceparent()],
  );
}
