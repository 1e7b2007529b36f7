import { inject, injectable } from 'tsyringe';
import { TENANT, TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import { TRANSACTION, type Transaction } from '../../platform/tenant-scope/unit-of-work';
import { OutboxSignal } from '../outbox/outbox-signal';
import { insertSystemNotices } from './system-notice-rows';
import type { NoticeContact } from './event-cancellation-notice';
import type { NoticeType } from '../notices/notice-types';
import { NotificationPreferences } from '../notices/notification-preferences';

/** A notice that carries a calendar object (issue 39): the sign-on confirmation, an event's change, a sign-off. */
export interface CalendarNoticeItem {
  /** sign_on, sign_off, event_changed or waitlist_promotion: whose preference decides the medium. */
  type: NoticeType;
  recipient: NoticeContact;
  title: string;
  text: string;
  /** The HTML part of the e-mail (NoticeRenderer), else none. */
  html?: string | null;
  /** The iCalendar object with its METHOD (REQUEST or CANCEL), built by the flow in the change's transaction. */
  calendar: string;
}

/**
 * Notices with a calendar invite, through the outbox, in the change's transaction (`tx.get`): one
 * statement for all of them, woken after the commit. By e-mail with the calendar (messages.calendar:
 * the mail sender adds it as the text/calendar alternative and an .ics attachment); by SMS, the
 * text without it. The medium is the person's preference for the item's type (NotificationPreferences:
 * a missing address falls back to the other medium; `both` gives two deliveries, `none` nothing).
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
    const preferences = this.tx.get(NotificationPreferences);
    const rows = [];
    for (const type of new Set(items.map((i) => i.type))) {
      const ofType = items.filter((i) => i.type === type);
      const deliveries = await preferences.deliveries(
        ofType.map((i) => i.recipient),
        type,
      );
      for (const { recipient: to, title, text, html, calendar } of ofType) {
        const d = deliveries.get(to.id) ?? [];
        if (d.length) rows.push({ recipient_id: to.id, title, text, deliveries: d, calendar, html: html ?? null });
      }
    }
    if (!rows.length) return 0;
    await insertSystemNotices(this.db, rows);
    this.tx.afterCommit(() => this.signal.notify(this.tenant.id));
    return rows.length;
  }
}
