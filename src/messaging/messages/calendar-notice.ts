import { inject, injectable } from 'tsyringe';
import { TENANT, TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import { TRANSACTION, type Transaction } from '../../platform/tenant-scope/unit-of-work';
import { OutboxSignal } from '../outbox/outbox-signal';
import type { Medium } from './message-rows';
import type { NoticeContact } from './event-cancellation-notice';

/** A notice that carries a calendar object (issue 39): the sign-on confirmation, an event's change, a sign-off. */
export interface CalendarNoticeItem {
  recipient: NoticeContact;
  title: string;
  text: string;
  /** The iCalendar object with its METHOD (REQUEST or CANCEL), built by the flow in the change's transaction. */
  calendar: string;
}

/**
 * Notices with a calendar invite, through the outbox, in the change's transaction (`tx.get`): one
 * statement for all of them, woken after the commit. By e-mail with the calendar (messages.calendar:
 * the mail sender adds it as the text/calendar alternative and an .ics attachment); a person with
 * only a mobile gets the text by SMS, without it; nobody without either.
 */
@injectable()
export class CalendarNotice {
  constructor(
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(OutboxSignal) private readonly signal: OutboxSignal,
    @inject(TRANSACTION) private readonly tx: Transaction,
    // the transaction's own handle: this class is only reached through tx.get
    @inject(TENANT_DB) private readonly db: TenantDb,
  ) {}

  /** Writes the notices; returns how many messages were written. */
  async write(items: readonly CalendarNoticeItem[]): Promise<number> {
    const rows = items.flatMap(({ recipient: to, title, text, calendar }) => {
      const medium: Medium | null = to.email ? 'email' : to.mobile ? 'sms' : null;
      if (!medium) return [];
      return [{ recipient_id: to.id, title, text, medium, address: (medium === 'email' ? to.email : to.mobile)!, calendar: medium === 'email' ? calendar : null }];
    });
    if (!rows.length) return 0;
    const { db } = this;
    await db.raw(
      `with x as (
         select nextval(pg_get_serial_sequence(?, 'id'))::int as id, r.* from jsonb_to_recordset(?::jsonb)
           as r(recipient_id int, title text, text text, medium text, address text, calendar text)),
       m as (
         insert into ?? (id, kind, sender_id, recipient_id, title, text, send_medium, calendar)
         select id, 'message', null, recipient_id, title, text, medium, calendar from x returning id)
       insert into ?? (message_id, medium, address, priority) select x.id, x.medium, x.address, 0 from x join m on m.id = x.id`,
      [db.ref('messages'), JSON.stringify(rows), db.ref('messages'), db.ref('message_deliveries')],
    );
    this.tx.afterCommit(() => this.signal.notify(this.tenant.id));
    return rows.length;
  }
}
