import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { fieldsShape, p, paging, pagingShape } from '../../platform/http/param-types';
import { MessageOutput, presentMessage } from '../../messaging';
import { SendMessageFlow } from '../../flows/messages/send-message';
import { ReadMessagesFlow } from '../../flows/messages/read-messages';
import { policies } from '../../people';

const SECURITY = "Security: Superuser, person's manager, self.";
// A CR or LF in a value that becomes a mail header could add headers (recipients) of its own.
const noLineBreak = <T extends z.ZodString>(s: T) => s.refine((v) => !/[\r\n]/.test(v), 'must not contain CR or LF');

export const messageRoutes = [
  defineRoute({
    method: 'post',
    path: '/messages',
    access: policies.selfOrManagerDeferredForSuperuser('user_name', 'send messages to this person'),
    resource: 'messages',
    // writes messages and message_deliveries only: no account, nothing a cached read is made of
    keepsCachedData: true,
    summary: 'Send a message to a person by e-mail, SMS or both',
    description:
      `${SECURITY} Stored with one delivery per medium and answered at once; workers deliver it. ` +
      'cc: e-mail addresses separated by comma, semicolon or space, at most config item messages.max_cc (default 10; more is a 420). ' +
      'send_medium defaults to email; a recipient without an e-mail address (or mobile, for sms and both) is a 420 at request time; cc is e-mail only. ' +
      'reply_to: empty, "manager" (the nearest manager of the recipient\'s organisation or one above it who has an e-mail; 420 when there is none) or an address. ' +
      'A CR or LF in title, cc or reply_to is a 420 naming it. ' +
      'A sender who is not a superuser may send at most messages.max_per_hour_per_sender (default 100) messages per hour (window from the first); ' +
      'past it errorcode 429 with a Retry-After header (seconds).',
    input: z.object({
      user_name: p.string(200).min(1, 'must not be empty'),
      title: noLineBreak(p.string(500).min(1, 'must not be empty')),
      text: z.string().min(1, 'must not be empty').max(20_000, 'must be at most 20000 characters'),
      cc: noLineBreak(p.string(5000)).optional(),
      send_medium: z.enum(['email', 'sms', 'both'], { message: 'must be email, sms or both' }).optional(),
      reply_to: noLineBreak(p.string(320)).optional(),
      ...fieldsShape,
    }),
    output: MessageOutput,
    async handler(ctx, input) {
      const view = await ctx.resolve(SendMessageFlow).send(ctx.user, ctx.target, input);
      return { message: 'message queued for delivery', items: [presentMessage(view)] };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/messages',
    access: policies.selfOrManager('user_name', "read this person's messages"),
    resource: 'messages',
    summary: 'Messages sent to a person (default: yourself), newest first, with their delivery state',
    description:
      `${SECURITY} Includes the messages the system sent, with sender_user_name null: e.g. expiry reminders, titled ` +
      '"Reminder: <competence title> is valid until <YYYY-MM-DD>", sent when a registration\'s days left reach a threshold of config item ' +
      'reminders.days_before (default [30, 7]; by e-mail, with the nearest manager in cc when reminders.notify_manager; by SMS when the person has only a mobile).',
    input: z.object({ user_name: p.string(200).min(1).optional(), ...pagingShape, ...fieldsShape }),
    output: MessageOutput,
    async handler(ctx, input) {
      const views = await ctx.resolve(ReadMessagesFlow).list(ctx.target, paging(input));
      return { items: views.map(presentMessage) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/messages/:message_id',
    access: policies.userThen('the recipient, their manager, a superuser, or the sender'),
    resource: 'messages',
    summary: 'One message with its delivery state per medium',
    description: `${SECURITY} The sender may read it too.`,
    input: z.object({ message_id: p.id(), ...fieldsShape }),
    output: MessageOutput,
    async handler(ctx, input) {
      return { items: [presentMessage(await ctx.resolve(ReadMessagesFlow).get(ctx.user, input.message_id))] };
    },
  }),
];
