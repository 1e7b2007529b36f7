import { inject, injectable } from 'tsyringe';
import { z } from 'zod';
import { TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import { MessagesRepository, type DeliveryRow, type Medium, type MessageWithNames, type SendMedium } from './messages.repository';
import type { RecipientsByUserName } from './insert-to-user-name';
import type { Recipient } from './recipients';
import { SenderRateLimit } from './sender-rate-limit';

export interface SendMessageInput {
  user_name: string;
  title: string;
  text: string;
  cc?: string;
  send_medium?: SendMedium;
  reply_to?: string;
}

export interface MessageView {
  message: MessageWithNames;
  deliveries: DeliveryRow[];
}

/**
 * What the one statement of `sendToUserName` did: stored the message; found the person, who lacks an
 * address a medium needs (nothing stored: `sendTo` answers the 420); found no one; or it was not tried
 * because the input needs the person first (reply_to manager) or is in error (`sendTo` answers).
 */
export type UserNameSend =
  { outcome: 'sent'; view: MessageView } | { outcome: 'no address'; person: Recipient } | { outcome: 'no person' } | { outcome: 'needs the person' };

/** The e-mail of the recipient's nearest manager, asked only when reply_to is "manager". */
export type ManagerEmail = () => Promise<string | null>;

const email = z.email();

/** Addresses separated by comma, semicolon or white space; each must be an e-mail address; at most `max` of them. */
export function parseCc(raw: string | undefined, max = Infinity): string[] {
  const parts = [...new Set((raw ?? '').split(/[,;\s]+/).filter((s) => s !== ''))];
  if (parts.length > max) throw ApiError.malformed('cc', `at most ${max} addresses (config item messages.max_cc)`);
  for (const a of parts) {
    if (!email.safeParse(a).success) throw ApiError.malformed('cc', `"${a}" is not an e-mail address`);
  }
  return parts;
}

/**
 * Sending messages: the checks of the input, the sender's rate limit and the insert. Who the recipient
 * is and whether the caller may reach them is decided by the flow that calls this (SendMessageFlow).
 */
@injectable()
export class MessagesService {
  constructor(
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(MessagesRepository) private readonly repo: MessagesRepository,
    @inject(SenderRateLimit) private readonly rateLimit: SenderRateLimit,
  ) {}

  /**
   * A superuser's message to a person named by user name: the lookup and the insert in one round
   * trip, the persons found by `recipients`. Input that needs the person first or is in error, and a
   * recipient without the address a medium needs, go the usual way (`sendTo`), which answers as before.
   */
  async sendToUserName(user: Principal, userName: string, input: SendMessageInput, recipients: RecipientsByUserName): Promise<UserNameSend> {
    const plan = this.planWithoutPerson(input);
    if (!plan) return { outcome: 'needs the person' };
    await this.rateLimit.consume(user); // superusers are not counted: a no-op, kept so the rule lives in one place
    const { person, stored } = await this.repo.insertToUserName(
      recipients,
      userName,
      { kind: 'message', sender_id: user.personId, title: input.title, text: input.text, cc: plan.cc, reply_to: plan.replyTo, send_medium: plan.medium },
      plan.media,
    );
    if (!person) return { outcome: 'no person' };
    if (!stored) return { outcome: 'no address', person };
    const view = { message: { ...stored.message, recipient_user_name: person.user_name, sender_user_name: user.userName }, deliveries: stored.deliveries };
    return { outcome: 'sent', view };
  }

  /** cc, reply_to and media when they are valid and need nothing of the recipient; else undefined. */
  private planWithoutPerson(input: SendMessageInput): { cc: string[]; replyTo: string | null; medium: SendMedium; media: Medium[] } | undefined {
    let cc: string[];
    try {
      cc = parseCc(input.cc, this.tenant.config.get('messages.max_cc'));
    } catch {
      return undefined;
    }
    const raw = input.reply_to;
    if (raw && (raw.toLowerCase() === 'manager' || !email.safeParse(raw).success)) return undefined;
    const medium = input.send_medium ?? 'email';
    return { cc, replyTo: raw || null, medium, media: medium === 'both' ? ['email', 'sms'] : [medium] };
  }

  /** `person`: the recipient, resolved and allowed (self, their manager, a superuser). */
  async sendTo(user: Principal, person: Recipient, input: SendMessageInput, managerEmail: ManagerEmail): Promise<MessageView> {
    const medium = input.send_medium ?? 'email';
    const cc = parseCc(input.cc, this.tenant.config.get('messages.max_cc'));
    const deliveries: { medium: Medium; address: string }[] = [];
    if (medium === 'email' || medium === 'both') {
      if (!person.email) throw ApiError.malformed('send_medium', `${person.user_name} has no e-mail address; use send_medium=sms or add one`);
      deliveries.push({ medium: 'email', address: person.email });
    }
    if (medium === 'sms' || medium === 'both') {
      if (!person.mobile) throw ApiError.malformed('send_medium', `${person.user_name} has no mobile number; use send_medium=email or add one`);
      deliveries.push({ medium: 'sms', address: person.mobile });
    }
    const replyTo = await this.replyTo(person, input.reply_to, managerEmail);
    // Counted once the request is valid, so typos do not use up the sender's hour.
    await this.rateLimit.consume(user);
    const stored = await this.repo.insert({
      kind: 'message',
      sender_id: user.personId,
      recipient_id: person.id,
      title: input.title,
      text: input.text,
      cc,
      reply_to: replyTo,
      send_medium: medium,
      deliveries,
    });
    // No Redis signal: the delivery's insert trigger sends NOTIFY outbox_pending on commit (migration 120),
    // which wakes the relay; a Redis round trip per message would cost more than it adds.
    return { message: { ...stored.message, recipient_user_name: person.user_name, sender_user_name: user.userName }, deliveries: stored.deliveries };
  }

  private async replyTo(person: Recipient, raw: string | undefined, managerEmail: ManagerEmail): Promise<string | null> {
    if (!raw) return null;
    if (raw.toLowerCase() === 'manager') {
      const found = await managerEmail();
      if (!found) throw ApiError.malformed('reply_to', `${person.user_name} has no manager with an e-mail address`);
      return found;
    }
    if (!email.safeParse(raw).success) throw ApiError.malformed('reply_to', 'must be empty, "manager" or an e-mail address');
    return raw;
  }

  /** The messages (read with their names by a flow) with their deliveries: one read of deliveries for all of them. */
  async withDeliveries(messages: MessageWithNames[]): Promise<MessageView[]> {
    const deliveries = await this.repo.deliveriesOf(messages.map((m) => m.id));
    return messages.map((m) => ({ message: m, deliveries: deliveries.filter((d) => d.message_id === m.id) }));
  }
}
