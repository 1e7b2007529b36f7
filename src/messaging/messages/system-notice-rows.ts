import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { NoticeDelivery } from '../notices/notice-media';
import { sendMediumOf } from '../notices/notice-media';
import { currentTraceparent } from '../../platform/tracing/tracing';

/** One notice the product writes itself (no sender), with its deliveries (the person's preference: one, or two for `both`). */
export interface SystemNoticeRow {
  recipient_id: number;
  title: string;
  text: string;
  deliveries: NoticeDelivery[];
  /** An iCalendar object sent with an e-mail (calendar invites), else null; an SMS delivery leaves it out. */
  calendar: string | null;
  /** The rendered HTML part of the e-mail (notices, src/messaging/notices), else null. */
  html?: string | null;
}

/**
 * Writes the notices and their deliveries in one statement: ids drawn first, so each message's
 * delivery names it. The caller is in the change's transaction and signals the outbox after commit.
 */
export async function insertSystemNotices(db: TenantDb, rows: readonly SystemNoticeRow[]): Promise<void> {
  const sent = rows.filter((r) => r.deliveries.length > 0);
  if (!sent.length) return;
  const input = sent.map(({ deliveries, ...r }) => ({
    ...r,
    medium: sendMediumOf(deliveries),
    // the calendar goes only with an e-mail
    calendar: deliveries.some((d) => d.medium === 'email') ? r.calendar : null,
    deliveries,
  }));
  await db.raw(
    `with x as (
       select nextval(pg_get_serial_sequence(?, 'id'))::int as id, r.* from jsonb_to_recordset(?::jsonb)
         as r(recipient_id int, title text, text text, medium text, calendar text, html text, deliveries jsonb)),
     m as (
       insert into ?? (id, kind, sender_id, recipient_id, title, text, send_medium, calendar, html)
       select id, 'message', null, recipient_id, title, text, medium, calendar, html from x returning id)
     insert into ?? (message_id, medium, address, priority, traceparent)
       select x.id, d.medium, d.address, 0, ?::text from x join m on m.id = x.id, jsonb_to_recordset(x.deliveries) as d(medium text, address text)`,
    [db.ref('messages'), JSON.stringify(input), db.ref('messages'), db.ref('message_deliveries'), currentTraceparent()],
  );
}
