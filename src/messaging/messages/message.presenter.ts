import { z } from 'zod';
import type { MessageView } from './messages.service';

/** The answer shape of a Message (one view only: fields= narrows it). */
export const MessageOutput = z
  .object({
    message_id: z.number().int(),
    user_name: z.string().describe('the recipient'),
    sender_user_name: z.string().nullable().describe('null for messages the system sent (e.g. a new password)'),
    title: z.string(),
    text: z.string().describe('a password sent by mail shows as ******** (it is never stored)'),
    cc: z.string().describe('e-mail copies, joined with ", "; empty when none'),
    send_medium: z.enum(['email', 'sms', 'both']),
    reply_to: z.string().nullable().describe('the reply-to address used; null gives the system default'),
    created_at: z.string().describe('ISO 8601 date-time'),
    deliveries: z
      .array(
        z.object({
          medium: z.enum(['email', 'sms']),
          address: z.string().describe('e-mail address or mobile number it goes to'),
          state: z.enum(['queued', 'sent', 'failed']),
          attempts: z.number().int(),
          reason: z.string().nullable().describe('the last error; null when none'),
          sent_at: z.string().nullable().describe('ISO 8601 date-time; null until sent'),
        }),
      )
      .describe('one per medium, with its delivery state'),
  })
  .describe('Message with its delivery state per medium. The sender may read it too; password mails never show the password.')
  .meta({ id: 'Message' });

/** The placeholder in a password mail's stored text; the password itself is never stored. */
export const PASSWORD_PLACEHOLDER = '{password}';

/** One Message: what was sent, and per medium whether it got there. */
export function presentMessage({ message: m, deliveries }: MessageView) {
  return {
    message_id: m.id,
    user_name: m.recipient_user_name,
    sender_user_name: m.sender_user_name,
    title: m.title,
    text: m.text.replaceAll(PASSWORD_PLACEHOLDER, '********'),
    cc: m.cc.join(', '),
    send_medium: m.send_medium,
    reply_to: m.reply_to,
    created_at: m.created_at,
    deliveries: deliveries.map((d) => ({
      medium: d.medium,
      address: d.address,
      // "sending" is an internal step; callers see it as still queued.
      state: d.state === 'sending' ? 'queued' : d.state,
      attempts: d.attempts,
      reason: d.last_error,
      sent_at: d.sent_at,
    })),
  };
}
