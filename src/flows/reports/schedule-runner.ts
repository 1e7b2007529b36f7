import { inject, injectable } from 'tsyringe';
import type { Logger } from 'pino';
import { ENV, LOGGER } from '../../platform/tokens';
import type { Env } from '../../platform/config/env';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import { UnitOfWork } from '../../platform/tenant-scope/unit-of-work';
import { TenantClock } from '../../platform/time/tenant-clock';
import { AuditTrail } from '../../platform/audit';
import { OrganisationsRepository } from '../../people';
import {
  MessageAttachments,
  MessagesRepository,
  NoticeRenderer,
  NotificationPreferences,
  ReportSchedulesRepository,
  duePeriod,
  sendMediumOf,
  timingOf,
  type ScheduleRow,
} from '../../messaging';
import { PrincipalLoader } from '../identity/principal-loader';
import { ScheduledReport, type ReportFile, type ScheduledReportParams } from './scheduled-report';
import { ScheduleRecipients, type ScheduleRecipient } from './schedule-recipients';

export type RunOutcome = 'sent' | 'no_recipients' | 'refused' | 'taken' | 'gone';

const oneLine = (s: string) => s.replace(/[\r\n]+/g, ' ').trim();

type Prepared = { kind: 'file'; file: ReportFile; to: ScheduleRecipient[]; leftOut: string[]; organisation: string } | { kind: 'refused'; why: string };

/**
 * Sends a schedule's report for a period: exactly once per (schedule, period). The file is made
 * first, with the owner's current rights (a deactivated owner, or one who lost the organisation, is
 * refused: the period is marked `refused`, nothing is mailed); then ONE transaction holds the schedule,
 * claims the period (report_schedule_runs, primary key; a concurrent claim waits and then finds it
 * taken), writes one message per recipient with the file attached into the outbox, and records the
 * run. A process dying before the commit leaves nothing (the next scan sends it); after the commit
 * the outbox delivers each mail at least once with a stable Message-ID.
 */
@injectable()
export class ScheduleRunner {
  constructor(
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TenantClock) private readonly clock: TenantClock,
    @inject(PrincipalLoader) private readonly principals: PrincipalLoader,
    @inject(ScheduledReport) private readonly report: ScheduledReport,
    @inject(ScheduleRecipients) private readonly recipients: ScheduleRecipients,
    @inject(OrganisationsRepository) private readonly organisations: OrganisationsRepository,
    @inject(ReportSchedulesRepository) private readonly schedules: ReportSchedulesRepository,
    @inject(ENV) private readonly env: Env,
    @inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** One tenant's part of the scan: every schedule whose current period's time has come and that has not sent it. */
  async runDue(): Promise<Record<RunOutcome, number>> {
    const counts: Record<RunOutcome, number> = { sent: 0, no_recipients: 0, refused: 0, taken: 0, gone: 0 };
    const now = this.clock.now();
    for (const s of await this.schedules.list()) {
      const period = duePeriod(timingOf(s), this.clock.zone, now, s.active_from);
      if (!period || (await this.schedules.ran(s.id, period.key))) continue;
      try {
        counts[await this.run(s, period.key, null)]++;
      } catch (err) {
        // one schedule's failure (statement timeout) must not stop the others; the next scan retries it
        this.logger.warn({ err: (err as Error).message, schedule_id: s.id }, 'report schedule run failed; the next scan retries it');
      }
    }
    return counts;
  }

  /** Sends the schedule's report for `periodKey` (run-now: a key of its own); `actor`: who asked (run-now), else the owner. */
  async run(s: ScheduleRow, periodKey: string, actor: Principal | null): Promise<RunOutcome> {
    const prepared = await this.prepare(s);
    const at = this.clock.now();
    return this.uow.run(async (tx): Promise<RunOutcome> => {
      const repo = tx.get(ReportSchedulesRepository);
      const held = await repo.hold(s.id);
      if (!held) return 'gone';
      // changed since the file was made (a PUT in between): the next scan makes it anew
      if (held.updated_at.getTime() !== s.updated_at.getTime()) return 'taken';
      if (!(await repo.claim(s.id, periodKey))) return 'taken';
      let outcome: RunOutcome;
      const messageIds: number[] = [];
      if (prepared.kind === 'refused') outcome = 'refused';
      else if (!prepared.to.length) outcome = 'no_recipients';
      else {
        outcome = 'sent';
        const { vars, attach } = this.mail(s, prepared, periodKey);
        // each recipient's preference for scheduled_report (none: no message; sms: the text without the file)
        const media = await tx.get(NotificationPreferences).deliveries(prepared.to, 'scheduled_report');
        for (const r of prepared.to) {
          const deliveries = media.get(r.id) ?? [];
          if (!deliveries.length) continue;
          // each recipient in their own language (persons.language, else the tenant's)
          const { title, text, html } = await tx.get(NoticeRenderer).render('scheduled_report', { ...vars, user_name: r.user_name }, r.language);
          const { message } = await tx.get(MessagesRepository).insert({
            kind: 'message',
            sender_id: s.owner_id,
            recipient_id: r.id,
            title,
            text,
            html,
            cc: [],
            reply_to: null,
            send_medium: sendMediumOf(deliveries),
            deliveries,
          });
          if (attach && deliveries.some((d) => d.medium === 'email')) await tx.get(MessageAttachments).add(message.id, [prepared.file]);
          messageIds.push(message.id);
        }
      }
      const error =
        prepared.kind === 'refused'
          ? prepared.why
          : prepared.leftOut.length
            ? `left out (not allowed, deactivated or without e-mail): ${prepared.leftOut.join(', ')}`
            : null;
      await repo.settle(s.id, periodKey, outcome, messageIds, at, error);
      const owner = await this.ownerName(s);
      await tx.get(AuditTrail).record({
        type: 'report_schedule.run',
        actor: actor?.userName ?? owner,
        subject: String(s.id),
        details: { period: periodKey, outcome, recipients: messageIds.length, format: s.format, report: s.report, ...(error ? { error } : {}) },
      });
      return outcome;
    });
  }

  private async ownerName(s: ScheduleRow): Promise<string> {
    try {
      return (await this.principals.byId(s.owner_id, 'session'))?.userName ?? `person ${s.owner_id}`;
    } catch {
      return `person ${s.owner_id}`;
    }
  }

  /** The file and the recipients with the owner's current rights, or why not. */
  private async prepare(s: ScheduleRow): Promise<Prepared> {
    const params = s.parameters as unknown as ScheduledReportParams;
    try {
      const owner = await this.principals.byId(s.owner_id, 'session');
      if (!owner) return { kind: 'refused', why: 'the owner no longer exists' };
      const file = await this.report.file(owner, s.report, s.format, params);
      const { to, left_out } = await this.recipients.resolve(owner, params.organisation_id, s.recipient_user_names, s.recipient_managers);
      const organisation = (await this.organisations.findById(params.organisation_id))?.name ?? `organisation ${params.organisation_id}`;
      return { kind: 'file', file, to, leftOut: left_out, organisation };
    } catch (err) {
      if (err instanceof ApiError) return { kind: 'refused', why: `the owner may no longer see this report: ${err.message}` };
      throw err;
    }
  }

  /** The variables of the scheduled_report notice (src/messaging/notices), and whether the file goes with it. */
  private mail(s: ScheduleRow, p: Extract<Prepared, { kind: 'file' }>, periodKey: string): { vars: Record<string, unknown>; attach: boolean } {
    const attach = p.file.content.length <= this.env.MAIL_ATTACHMENT_MAX_BYTES;
    const vars = {
      report: s.report,
      organisation: oneLine(p.organisation),
      date: p.file.date,
      attached: attach,
      filename: p.file.filename,
      format: s.format,
      file_bytes: p.file.content.length,
      max_bytes: this.env.MAIL_ATTACHMENT_MAX_BYTES,
      download_path: `/api/reports/${s.report}?organisation_id=${(s.parameters as { organisation_id: number }).organisation_id}&format=${s.format}`,
      frequency: periodKey.startsWith('now:') ? 'request' : s.frequency,
      schedule_id: s.id,
    };
    return { vars, attach };
  }
}
