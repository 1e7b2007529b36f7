import { inject, injectable } from 'tsyringe';
import { z } from 'zod';
import { TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenancy/tenant';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import type { Paging } from '../../platform/http/param-types';
import { MessagesRepository, type DeliveryRow, type Medium, type MessageWithNames, type SendMedium } from './messages.repository';
import { PersonAccess, PersonDirectory, personNotFound, type DeferredTarget } from '../../people';
import { RECIPIENT_COLUMNS, type Recipient } from './recipients';
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

@injectable()
export class MessagesService {
  constructor(
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(MessagesRepository) private readonly repo: MessagesRepository,
    @inject(PersonDirectory) private readonly recipients: PersonDirectory,
    @inject(PersonAccess) private readonly access: PersonAccess,
    @inject(SenderRateLimit) private readonly rateLimit: SenderRateLimit,
  ) {}

  /**
   * `target`: the recipient, resolved and allowed by the route (self, their manager, a superuser),
   * or, for a superuser, only named (DeferredTarget): then the lookup and the insert are one
   * statement when the input needs nothing else of the person.
   */
  async send(user: Principal, target: Recipient | DeferredTarget, input: SendMessageInput): Promise<MessageView> {
    if (!('deferred' in target)) return this.sendTo(user, target, input);
    // the route defers only a superuser's target: a superuser may send to every person of the tenant
    if (!user.superuser) throw new Error('a deferred message recipient for a caller who is not a superuser');
    const quick = await this.sendInOneStatement(user, target.user_name, input);
    return 'view' in quick ? quick.view : this.sendTo(user, quick.person, input);
  }

  /**
   * A superuser's message to a person named by user name: the lookup and the insert in one round
   * trip. Input that needs the person first (reply_to "manager") or is in error, and a recipient
   * without the address a medium needs, go the usual way (`sendTo`), which answers as before.
   */
  private async sendInOneStatement(user: Principal, userName: string, input: SendMessageInput): Promise<{ view: MessageView } | { person: Recipient }> {
    const plan = this.planWithoutPerson(input);
    if (!plan) {
      const person = await this.access.lookup(user, userName);
      if (!person) throw personNotFound(userName);
      return { person };
    }
    await this.rateLimit.consume(user); // superusers are not counted: a no-op, kept so the rule lives in one place
    const { person, stored } = await this.repo.insertToUserName(
      userName,
      { kind: 'message', sender_id: user.personId, title: input.title, text: input.text, cc: plan.cc, reply_to: plan.replyTo, send_medium: plan.medium },
      plan.media,
    );
    if (!person) throw personNotFound(userName);
    if (!stored) return { person };
    return { view: { message: { ...stored.message, recipient_user_name: person.user_name, sender_user_name: user.userName }, deliveries: stored.deliveries } };
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
  private async sendTo(user: Principal, person: Recipient, input: SendMessageInput): Promise<MessageView> {
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
    const replyTo = await this.replyTo(person, input.reply_to);
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

  private async replyTo(person: Recipient, raw: string | undefined): Promise<string | null> {
    if (!raw) return null;
    if (raw.toLowerCase() === 'manager') {
      const found = await this.recipients.managerEmail(person);
      if (!found) throw ApiError.malformed('reply_to', `${person.user_name} has no manager with an e-mail address`);
      return found;
    }
    if (!email.safeParse(raw).success) throw ApiError.malformed('reply_to', 'must be empty, "manager" or an e-mail address');
    return raw;
  }

  /** `person`: resolved and allowed by the route (self, their manager, a superuser). */
  async list(person: Recipient, page: Paging): Promise<MessageView[]> {
    const messages = await this.repo.listForRecipient(person.id, page.limit, page.offset);
    const deliveries = await this.repo.deliveriesOf(messages.map((m) => m.id));
    return messages.map((m) => ({ message: m, deliveries: deliveries.filter((d) => d.message_id === m.id) }));
  }

  /** Recipient, their manager, a superuser, and the sender (who may follow what they sent). */
  async get(user: Principal, id: number): Promise<MessageView> {
    const view = await this.repo.find(id).then((m) => (m ? this.withDeliveries(m) : undefined));
    if (!view) throw ApiError.notFound(`message ${id}`);
    if (view.message.sender_id !== user.personId) {
      const person = await this.recipients.find({ id: view.message.recipient_id }, RECIPIENT_COLUMNS);
      await this.access.assert(user, person!, 'selfOrManager', 'read this message');
    }
    return view;
  }

  private async withDeliveries(m: MessageWithNames): Promise<MessageView> {
    return { message: m, deliveries: await this.repo.deliveriesOf([m.id]) };
  }
}
