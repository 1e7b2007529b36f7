import type { MessageView } from './messages.service';

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
