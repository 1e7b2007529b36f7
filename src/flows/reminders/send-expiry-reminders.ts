import { inject, injectable } from 'tsyringe';
import type { Logger } from 'pino';
import { LOGGER, TENANT, TENANT_DB } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import { UnitOfWork } from '../../platform/tenant-scope/unit-of-work';
import { TenantClock } from '../../platform/time/tenant-clock';
import { PersonDirectory } from '../../people';
import { holdRegistration } from '../../catalogue';
import {
  ExpiryRemindersRepository,
  MessagesRepository,
  NoticeRenderer,
  NotificationPreferences,
  OutboxSignal,
  RECIPIENT_COLUMNS,
  reminderMessage,
  sendMediumOf,
  thresholdsDone,
  type DueRegistration,
  type Medium,
} from '../../messaging';
import { readDueRegistrations } from './due-registrations';

export interface TenantScanResult {
  /** Reminders written to the outbox, per medium. */
  email: number;
  sms: number;
  /** Persons with neither e-mail nor mobile: marked done, logged, nothing sent. */
  noContact: number;
  /** Persons who turned expiry reminders off (notification preferences): marked done, nothing sent. */
  turnedOff: number;
  /** Found due, but another scan reminded them first (or the registration changed meanwhile). */
  taken: number;
}

type Outcome = { kind: 'sent'; media: Medium[] } | { kind: 'no_contact' } | { kind: 'turned_off' } | { kind: 'taken' };

/** Registrations read per query; each one is then reminded in a transaction of its own. */
const BATCH = 200;

/**
 * One tenant's part of the reminder scan: registrations are the catalogue's, persons and their
 * managers people's, the reminder rows and the message messaging's. Each reminder is one
 * transaction (`uow.run`, everything through `tx.get`): the registration held, the rows of the
 * thresholds it settles and the message with its outbox delivery commit together, so a scan killed
 * halfway leaves every registration either reminded or not (the next scan finishes it).
 */
@injectable()
export class SendExpiryRemindersFlow {
  constructor(
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TenantClock) private readonly clock: TenantClock,
    @inject(OutboxSignal) private readonly signal: OutboxSignal,
    @inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Thresholds of the tenant, largest first; empty when reminders are off. */
  private thresholds(): number[] {
    return [...new Set(this.tenant.config.get('reminders.days_before'))].filter((d) => d > 0).sort((a, b) => b - a);
  }

  async scan(cancelled: () => boolean = () => false): Promise<TenantScanResult> {
    const result: TenantScanResult = { email: 0, sms: 0, noContact: 0, turnedOff: 0, taken: 0 };
    const thresholds = this.thresholds();
    if (thresholds.length === 0) return result;
    // One calendar day for the whole pass, so a scan running over midnight stays consistent.
    const today = this.clock.today();
    let afterId = 0;
    try {
      for (;;) {
        const due = await readDueRegistrations(this.db, today, thresholds, afterId, BATCH);
        for (const reg of due) {
          if (cancelled()) return result;
          const outcome = await this.remind(reg, thresholds);
          if (outcome.kind === 'sent') for (const m of outcome.media) result[m]++;
          else if (outcome.kind === 'no_contact') result.noContact++;
          else if (outcome.kind === 'turned_off') result.turnedOff++;
          else result.taken++;
        }
        if (due.length < BATCH) break;
        afterId = due[due.length - 1].id;
      }
    } finally {
      if (result.email + result.sms > 0) await this.signal.notify(this.tenant.id);
    }
    return result;
  }

  private async remind(reg: DueRegistration, thresholds: readonly number[]): Promise<Outcome> {
    const done = thresholdsDone(reg.days_left, thresholds);
    return this.uow.run(async (tx): Promise<Outcome> => {
      // a renewal or deletion in flight waits for this transaction, or this one sees it and skips
      if (!(await holdRegistration(tx.get(TENANT_DB), reg.id, reg.valid_until))) return { kind: 'taken' };
      const reminders = tx.get(ExpiryRemindersRepository);
      const claimed = await reminders.claimThresholds(reg, done);
      if (!claimed.includes(reg.reached)) return { kind: 'taken' };
      const persons = tx.get(PersonDirectory);
      const person = await persons.find({ id: reg.person_id }, RECIPIENT_COLUMNS);
      if (!person || (!person.email && !person.mobile)) {
        this.logger.warn(
          { tenant: this.tenant.slug, person_id: reg.person_id, user_name: person?.user_name, person_competence_id: reg.id, valid_until: reg.valid_until },
          'expiry reminder skipped: the person has neither e-mail nor mobile',
        );
        return { kind: 'no_contact' };
      }
      // the person's preference for expiry_reminder: e-mail, SMS, both (two deliveries) or none (turned off: settled, nothing sent)
      const deliveries = (await tx.get(NotificationPreferences).deliveries([person], 'expiry_reminder')).get(person.id) ?? [];
      if (!deliveries.length) return { kind: 'turned_off' };
      // A manager can only be copied on an e-mail; an SMS reminder goes to the person alone.
      const byEmail = deliveries.some((d) => d.medium === 'email');
      const manager = byEmail && this.tenant.config.get('reminders.notify_manager') ? await persons.managerEmail(person) : null;
      const { title, text, html } = await reminderMessage(
        tx.get(NoticeRenderer),
        { competenceTitle: reg.competence_title, validUntil: reg.valid_until, daysLeft: reg.days_left },
        person,
      );
      const { message } = await tx.get(MessagesRepository).insert({
        kind: 'message',
        sender_id: null,
        recipient_id: person.id,
        title,
        text,
        html,
        cc: manager ? [manager] : [],
        reply_to: null,
        send_medium: sendMediumOf(deliveries),
        deliveries,
      });
      await reminders.attachMessage(reg.id, claimed, message.id);
      return { kind: 'sent', media: deliveries.map((d) => d.medium) };
    });
  }
}
