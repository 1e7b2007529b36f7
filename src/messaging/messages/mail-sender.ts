import { inject, injectable } from 'tsyringe';
import nodemailer, { type Transporter } from 'nodemailer';
import { ENV } from '../../platform/tokens';
import type { Env } from '../../platform/config/env';
import { PermanentDeliveryError, TemporaryDeliveryError } from './delivery-errors';
import { calendarMailOptions } from './calendar-mail';
import { inSpan, SpanKind, tracingEnabled } from '../../platform/tracing/tracing';

export interface OutgoingMail {
  from: string;
  to: string;
  cc: string[];
  replyTo: string | null;
  subject: string;
  text: string;
  /** The HTML alternative of a notice (messages.html): the mail is multipart/alternative, text then HTML. */
  html?: string | null;
  /** Stable per delivery, so a resend is recognisable as one. */
  messageId?: string;
  /** Files attached to the mail (message_attachments), in order. */
  attachments?: MailAttachment[];
  /** An iCalendar object (issue 39): sent as the text/calendar alternative and an .ics attachment. */
  calendar?: string | null;
}

export interface MailAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

/** nodemailer options of a calendar invite, with the message's own files after its .ics. */
function withAttachments(options: { icalEvent?: object }, files: MailAttachment[] | undefined) {
  if (!files?.length) return options;
  return { ...options, attachments: files.map((a) => ({ filename: a.filename, contentType: a.contentType, content: a.content })) };
}

/** E-mail over SMTP_URL through one pooled nodemailer transport per process. */
@injectable()
export class MailSender {
  private transport: Transporter | null = null;

  constructor(@inject(ENV) private readonly env: Env) {}

  /** In a span `smtp send` (tracing on): the SMTP server and the Message-ID, never the addresses or the text. */
  send(mail: OutgoingMail): Promise<string> {
    if (!tracingEnabled()) return this.sendMail(mail);
    return inSpan('smtp send', { kind: SpanKind.CLIENT, attributes: smtpAttributes(this.env.SMTP_URL, mail) }, async (span) => {
      const id = await this.sendMail(mail);
      span?.setAttribute('smtp.accepted', true);
      return id;
    });
  }

  private async sendMail(mail: OutgoingMail): Promise<string> {
    if (!this.env.SMTP_URL) throw new PermanentDeliveryError('e-mail is not configured on this server (SMTP_URL is not set)');
    this.transport ??= nodemailer.createTransport({ url: this.env.SMTP_URL, pool: true, maxConnections: 10, logger: false } as any);
    try {
      const info = await this.transport.sendMail({
        from: mail.from,
        to: mail.to,
        cc: mail.cc.length ? mail.cc : undefined,
        replyTo: mail.replyTo ?? undefined,
        subject: mail.subject,
        text: mail.text,
        ...(mail.html ? { html: mail.html } : {}),
        messageId: mail.messageId,
        // a calendar invite's .ics is attached by nodemailer itself (icalEvent); files of the message (reports) are the attachments
        ...withAttachments(calendarMailOptions(mail.calendar), mail.attachments),
      });
      return String(info.messageId ?? '');
    } catch (err) {
      const e = err as Error & { responseCode?: number; response?: string; code?: string };
      // Only the server's own answer is put on record: the mail itself (maybe a password) never is.
      const why = e.responseCode
        ? `SMTP ${e.responseCode}: ${String(e.response ?? '').slice(0, 300)}`
        : `SMTP ${e.code ?? 'error'}: ${e.message.slice(0, 300)}`;
      if (e.responseCode && e.responseCode >= 500) throw new PermanentDeliveryError(why);
      throw new TemporaryDeliveryError(why);
    }
  }

  close(): void {
    this.transport?.close();
    this.transport = null;
  }
}

/** Where the mail goes (host and port of SMTP_URL, no credentials) and its Message-ID. */
function smtpAttributes(smtpUrl: string | undefined, mail: OutgoingMail): Record<string, string | number> {
  const out: Record<string, string | number> = { 'network.protocol.name': 'smtp' };
  try {
    const u = new URL(smtpUrl ?? '');
    out['server.address'] = u.hostname;
    out['server.port'] = Number(u.port || (u.protocol === 'smtps:' ? 465 : 587));
  } catch {
    // no SMTP_URL: the send fails and says so
  }
  if (mail.messageId) out['smtp.message_id'] = mail.messageId;
  return out;
}
