import { inject, injectable } from 'tsyringe';
import { TENANT, TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import { TRANSACTION, type Transaction } from '../../platform/tenant-scope/unit-of-work';
import { OutboxSignal } from '../outbox/outbox-signal';
import { insertSystemNotices, type SystemNoticeRow } from './system-notice-rows';
import { NotificationPreferences } from '../notices/notification-preferences';
import { NoticeRenderer } from '../notices/notice-renderer';

/** A person to tell, and how (e-mail, else SMS). */
export interface NoticeContact {
  id: number;
  email: string | null;
  mobile: string | null;
  /** BCP 47: the language the notice is written in (null: the tenant's). */
  language?: string | null;
  user_name?: string;
}

/** Whose place on which event a cancellation ended, and whom to copy. */
export interface CancelledPlace {
  participant: NoticeContact & { user_name: string };
  /** The METHOD:CANCEL calendar the participant's e-mail carries (a seat's invite withdrawn); none for the wait list. */
  calendar?: string | null;
  /** signed_on or waitlist, before the cancellation. */
  status: 'signed_on' | 'waitlist';
  /** The participant's managers (people's nearest managers): each gets a copy of their own. */
  managers: NoticeContact[];
}

export interface EventCancellation {
  eventTitle: string;
  startsAt: Date;
  reason: string | null;
  places: CancelledPlace[];
}

/**
 * The notices of a cancelled event, through the outbox: one message to each participant (seat or
 * wait list) and a copy to each of that participant's managers, as a message of its own whose
 * recipient is the manager (so it is in the manager's GET /api/messages and goes by the manager's
 * medium). Each by their notification preference for event_cancelled (by default e-mail, else SMS;
 * a missing address falls back; `both` two deliveries; `none` nothing); nobody without either. All of them in one statement of the
 * cancellation's transaction (`tx.get`): the cancellation and its notices commit together, and a
 * notice that cannot be written rolls the cancellation back. The delivery is woken after the commit.
 */
@injectable()
export class EventCancellationNotice {
  constructor(
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(OutboxSignal) private readonly signal: OutboxSignal,
    @inject(TRANSACTION) private readonly tx: Transaction,
    // the transaction's own handle: this class is only reached through tx.get
    @inject(TENANT_DB) private readonly db: TenantDb,
  ) {}

  /** Writes the notices; returns how many messages were written. */
  async write(c: EventCancellation): Promise<number> {
    const rows: SystemNoticeRow[] = [];
    // everyone's preference for event_cancelled (participants and managers), read at once
    const everyone = c.places.flatMap((p) => [p.participant, ...p.managers]);
    const deliveries = await this.tx.get(NotificationPreferences).deliveries(everyone, 'event_cancelled');
    const renderer = this.tx.get(NoticeRenderer);
    const add = async (to: NoticeContact, place: CancelledPlace, managerCopy: boolean, calendar: string | null = null) => {
      const d = deliveries.get(to.id) ?? [];
      if (!d.length) return;
      const { title, text, html } = await renderer.render(
        'event_cancelled',
        {
          user_name: to.user_name ?? '',
          event_title: c.eventTitle,
          starts_at: new Date(c.startsAt).toISOString(),
          reason: c.reason,
          waitlist: place.status === 'waitlist',
          manager_copy: managerCopy,
          participant: place.participant.user_name,
        },
        to.language,
      );
      rows.push({ recipient_id: to.id, title, text, html, deliveries: d, calendar });
    };
    for (const place of c.places) {
      await add(place.participant, place, false, place.calendar ?? null);
      for (const manager of place.managers) await add(manager, place, true);
    }
    if (!rows.length) return 0;
    await insertSystemNotices(this.db, rows);
    this.tx.afterCommit(() => this.signal.notify(this.tenant.id));
    return rows.length;
  }
}
