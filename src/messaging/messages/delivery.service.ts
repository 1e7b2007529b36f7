import { inject, injectable } from 'tsyringe';
import { ENV, TENANT, TENANT_DB } from '../../platform/tokens';
import type { Env } from '../../platform/config/env';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import { UnitOfWork } from '../../platform/tenant-scope/unit-of-work';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import type { DeliveryRow, Medium, MessageRow } from './messages.repository';
import { MailSender, type MailAttachment } from './mail-sender';
import { MessageAttachments } from './message-attachments';
import { SmsSender } from './sms-sender';
import { PermanentDeliveryError, TemporaryDeliveryError } from './delivery-errors';
import { PASSWORD_PLACEHOLDER } from './message.presenter';
import { escapeHtml } from '../notices/notice-html';
import type { FailedDeliveryEvent } from './message-failed-event';
import { currentTraceparent, inSpan, traceIdOf, tracingEnabled, type SpanOptions } from '../../platform/tracing/tracing';

export type DeliveryOutcome = 'sent' | 'skipped' | 'failed' | 'retry';

/** What a batch came to: per delivery id its outcome, and an unexpected error to report (the row is failed). */
export interface BatchOutcome {
  outcomes: Map<number, DeliveryOutcome>;
  /** The medium of each delivery that ended failed (for the failure counter). */
  failedMedia: Medium[];
  unexpected?: Error;
}

/** What delivering needs from outside messaging, given by the flow that runs the delivery jobs. */
export interface DeliveryNeeds {
  /**
   * The password a password mail carries: made now and kept as the person's pending password of this
   * delivery. `requestedAt`: when the mail was written. Null when the person's credentials changed since
   * (the mail is void and fails for good).
   */
  newPassword(personId: number, deliveryId: number, requestedAt: Date | string): Promise<string | null>;
  failed: FailedDeliveryEvent;
}

/** The failure of a password mail asked for before the person's password, e-mail or mobile changed. */
export const VOID_PASSWORD_MAIL = 'not sent: the password, e-mail or mobile changed after this password mail was asked for, so it carries no password';

/** Sends of one batch in flight at once (the SMTP pool has MAIL_POOL_CONNECTIONS connections). */
const SENDS_AT_ONCE = 10;

/** `<delivery-t<tenant>-<delivery>@<domain of mail.from>>`: the same for every attempt of one delivery, so a receiver can tell a resend from a new message. */
export function deliveryMessageId(tenantId: number, deliveryId: number, from: string): string {
  const domain = /@([^>\s]+)>?\s*$/.exec(from)?.[1] ?? 'localhost';
  return `<delivery-t${tenantId}-${deliveryId}@${domain}>`;
}

type Claimed = DeliveryRow & { message: MessageRow; expired: boolean; has_attachments: boolean };

/**
 * Sends deliveries at least once, one or a batch at a time. Rows move queued -> sending in one
 * conditional UPDATE (the row lock), so two jobs for one row do not send at once. A row left
 * `sending` longer than OUTBOX_REDELIVER_AFTER_SECONDS belongs to a worker that died mid-send: it
 * is claimed again and sent again (with the same Message-ID), because losing a message is worse
 * than a recognisable duplicate. Giving up is decided by the message's age
 * (MESSAGE_DELIVERY_MAX_AGE_HOURS), never by BullMQ's attempt budget.
 *
 * A batch costs three statements however long it is: the claim, one UPDATE of the rows sent and
 * one of the rows to retry (failures, rare, each with its message.failed event in one transaction).
 * Each row's outcome is its own: one recipient's error neither stops nor repeats the others.
 */
@injectable()
export class DeliveryService {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(MailSender) private readonly mail: MailSender,
    @inject(SmsSender) private readonly sms: SmsSender,
    @inject(ENV) private readonly env: Env,
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
  ) {}

  /** One delivery; an unexpected error fails the row and is thrown. */
  async deliver(deliveryId: number, needs: DeliveryNeeds): Promise<DeliveryOutcome> {
    const { outcomes, unexpected } = await this.deliverMany([deliveryId], needs);
    if (unexpected) throw unexpected;
    return outcomes.get(deliveryId) ?? 'skipped';
  }

  /** A batch of one tenant's deliveries: each sent, skipped (done or in another worker's hands), failed or set back for a retry. */
  async deliverMany(deliveryIds: readonly number[], needs: DeliveryNeeds): Promise<BatchOutcome> {
    const outcomes = new Map<number, DeliveryOutcome>(deliveryIds.map((id) => [id, 'skipped']));
    const claimed = await this.claim(deliveryIds);
    // files only for the e-mails whose message has any (one more statement, only then)
    const withFiles = claimed.filter((c) => c.has_attachments && c.medium === 'email' && !c.expired).map((c) => c.message_id);
    const files = withFiles.length ? await new MessageAttachments(this.db).of(withFiles) : new Map<number, MailAttachment[]>();
    const sent: { id: number; providerId: string }[] = [];
    const retry: { id: number; reason: string }[] = [];
    const failed: { id: number; reason: string; medium: Medium }[] = [];
    let unexpected: Error | undefined;
    await eachAtMost(SENDS_AT_ONCE, claimed, ({ message, expired, has_attachments: _a, ...delivery }) =>
      inSpan(`deliver ${delivery.medium}`, deliverySpan(this.tenant.id, delivery), async (span) => {
        if (expired) {
          failed.push({ id: delivery.id, reason: expiredReason(this.env, delivery.last_error), medium: delivery.medium });
          span?.setAttribute('delivery.outcome', 'expired');
          return;
        }
        try {
          sent.push({ id: delivery.id, providerId: await this.send(delivery, message, needs, files.get(message.id)) });
          span?.setAttribute('delivery.outcome', 'sent');
        } catch (err) {
          const reason = (err as Error).message;
          if (err instanceof TemporaryDeliveryError) retry.push({ id: delivery.id, reason });
          else {
            failed.push({ id: delivery.id, reason, medium: delivery.medium });
            if (!(err instanceof PermanentDeliveryError)) unexpected ??= err as Error;
          }
          span?.setAttributes({ 'delivery.outcome': err instanceof TemporaryDeliveryError ? 'retry' : 'failed', 'delivery.reason': reason.slice(0, 300) });
        }
      }),
    );
    await this.markSent(sent);
    await this.setBack(retry);
    await this.fail(failed, needs.failed);
    for (const { id } of sent) outcomes.set(id, 'sent');
    for (const { id } of retry) outcomes.set(id, 'retry');
    for (const { id } of failed) outcomes.set(id, 'failed');
    return { outcomes, failedMedia: failed.map((f) => f.medium), unexpected };
  }

  /** queued (or abandoned sending) -> sending, with their messages and whether they are too old, in one round trip. */
  private async claim(deliveryIds: readonly number[]): Promise<Claimed[]> {
    const { rows } = await this.db.raw(
      `with c as (
         update ?? set state = 'sending', attempts = attempts + 1, updated_at = now()
          where id = any(?::int[]) and (state = 'queued' or (state = 'sending' and updated_at < now() - make_interval(secs => ?)))
          returning *)
       select c.*, to_jsonb(m) as message, m.created_at < now() - make_interval(secs => ?) as expired,
              exists (select 1 from ?? a where a.message_id = c.message_id) as has_attachments
         from c join ?? m on m.id = c.message_id
        order by c.id`,
      [
        this.db.ref('message_deliveries'),
        [...deliveryIds],
        this.env.OUTBOX_REDELIVER_AFTER_SECONDS,
        maxAgeSeconds(this.env),
        this.db.ref('message_attachments'),
        this.db.ref('messages'),
      ],
    );
    return rows;
  }

  private async markSent(sent: { id: number; providerId: string }[]): Promise<void> {
    if (!sent.length) return;
    await this.db.raw(
      `update ?? d set state = 'sent', provider_id = s.provider_id, sent_at = now(), last_error = null, updated_at = now()
         from unnest(?::int[], ?::text[]) as s(id, provider_id)
        where d.id = s.id`,
      [this.db.ref('message_deliveries'), sent.map((s) => s.id), sent.map((s) => s.providerId)],
    );
  }

  /** Back to queued with the reason; the job is retried with backoff. */
  private async setBack(rows: { id: number; reason: string }[]): Promise<void> {
    if (!rows.length) return;
    await this.db.raw(
      `update ?? d set state = 'queued', last_error = s.reason, updated_at = now()
         from unnest(?::int[], ?::text[]) as s(id, reason)
        where d.id = s.id`,
      [this.db.ref('message_deliveries'), rows.map((r) => r.id), rows.map((r) => r.reason)],
    );
  }

  /** Failed for good, with message.failed for the webhooks in the same transaction. */
  private async fail(rows: { id: number; reason: string }[], failedEvent: FailedDeliveryEvent): Promise<void> {
    if (!rows.length) return;
    await this.uow.run(async (tx) => {
      for (const { id, reason } of rows) {
        await tx
          .get(TENANT_DB)
          .table('message_deliveries')
          .where({ id })
          .update({ state: 'failed', last_error: reason, updated_at: tx.get(TENANT_DB).fn.now() });
        await failedEvent(tx, id);
      }
    });
  }

  private async send(d: DeliveryRow, m: MessageRow, needs: DeliveryNeeds, attachments?: MailAttachment[]): Promise<string> {
    let text = m.text;
    let html = m.html ?? null;
    if (m.kind === 'password') {
      const password = await needs.newPassword(m.recipient_id, d.id, m.created_at);
      if (password === null) throw new PermanentDeliveryError(VOID_PASSWORD_MAIL);
      text = m.text.replaceAll(PASSWORD_PLACEHOLDER, password);
      html = html?.replaceAll(PASSWORD_PLACEHOLDER, escapeHtml(password)) ?? null;
    }
    if (d.medium === 'email') {
      const from = this.tenant.config.get('mail.from') ?? this.env.MAIL_FROM;
      if (!from) throw new PermanentDeliveryError('the tenant has no sender address (config item mail.from) and the platform has no default (MAIL_FROM)');
      const messageId = deliveryMessageId(this.tenant.id, d.id, from);
      return this.mail.send({
        from,
        to: d.address,
        cc: m.cc,
        replyTo: m.reply_to,
        subject: m.title,
        text,
        html,
        messageId,
        calendar: m.calendar,
        ...(attachments ? { attachments } : {}),
      });
    }
    const from = this.tenant.config.get('sms.from');
    if (!from) throw new PermanentDeliveryError('the tenant has no SMS sender (config item sms.from)');
    return this.sms.send({ from, to: d.address, body: `${m.title}\n${text}` });
  }
}

/**
 * The span of one delivery's send (tracing on): within the job's span when the row belongs to the
 * job's trace, else a child of the request that wrote the row (its traceparent, migration 370) with
 * a link to the job, so every message's trace ends in its own send.
 */
function deliverySpan(tenantId: number, d: DeliveryRow): SpanOptions {
  if (!tracingEnabled()) return {};
  const job = currentTraceparent();
  const own = d.traceparent && traceIdOf(d.traceparent) !== traceIdOf(job) ? d.traceparent : undefined;
  return {
    ...(own ? { parent: own, links: [job] } : {}),
    attributes: { 'tenant.id': tenantId, 'message.id': d.message_id, 'delivery.id': d.id, 'delivery.medium': d.medium, 'delivery.attempt': d.attempts },
  };
}

/** Runs `fn` over `items`, at most `limit` at a time. */
async function eachAtMost<T>(limit: number, items: readonly T[], fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const runner = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, runner));
}

export function maxAgeSeconds(env: Env): number {
  return Math.round(env.MESSAGE_DELIVERY_MAX_AGE_HOURS * 3600);
}

export function expiredReason(env: Env, lastError: string | null): string {
  return `expired: not delivered within ${env.MESSAGE_DELIVERY_MAX_AGE_HOURS} h (MESSAGE_DELIVERY_MAX_AGE_HOURS)${lastError ? `; last error: ${lastError}` : ''}`;
}
