import { inject, injectable } from 'tsyringe';
import type { Principal } from '../../platform/auth/principal';
import { PersonAccess, PersonDirectory, personNamed, personNotFound, personsNamedIn, type DeferredTarget, type TargetPerson } from '../../people';
import { MessagesService, RECIPIENT_COLUMNS, type MessageView, type Recipient, type RecipientsByUserName, type SendMessageInput } from '../../messaging';

/** How a superuser's one-statement send finds its recipients: people's sub-queries of persons by user name. */
export const RECIPIENTS_BY_USER_NAME: RecipientsByUserName = {
  named: (db, userName) => personNamed(db, userName, RECIPIENT_COLUMNS),
  namedIn: (db, userNames) => personsNamedIn(db, userNames, RECIPIENT_COLUMNS),
};

/**
 * POST /api/messages: a message to a person the caller may reach. People resolves the recipient
 * (the route's access rule) and their nearest manager (reply_to "manager"); messaging checks the
 * input and the sender's hour, and stores the message with its outbox rows. A superuser's target
 * is only named (DeferredTarget): then the recipient is found by the insert itself, one statement.
 */
@injectable()
export class SendMessageFlow {
  constructor(
    @inject(MessagesService) private readonly messages: MessagesService,
    @inject(PersonDirectory) private readonly persons: PersonDirectory,
    @inject(PersonAccess) private readonly access: PersonAccess,
  ) {}

  /** `target`: the recipient, resolved and allowed by the route (self, their manager, a superuser), or only named for a superuser. */
  async send(user: Principal, target: TargetPerson | DeferredTarget, input: SendMessageInput): Promise<MessageView> {
    if (!('deferred' in target)) return this.sendTo(user, target, input);
    // the route defers only a superuser's target: a superuser may send to every person of the tenant
    if (!user.superuser) throw new Error('a deferred message recipient for a caller who is not a superuser');
    const userName = target.user_name;
    const quick = await this.messages.sendToUserName(user, userName, input, RECIPIENTS_BY_USER_NAME);
    if (quick.outcome === 'sent') return quick.view;
    if (quick.outcome === 'no person') throw personNotFound(userName);
    if (quick.outcome === 'no address') return this.sendTo(user, quick.person, input);
    const person = await this.access.lookup(user, userName);
    if (!person) throw personNotFound(userName);
    return this.sendTo(user, person, input);
  }

  private sendTo(user: Principal, person: Recipient, input: SendMessageInput): Promise<MessageView> {
    return this.messages.sendTo(user, person, input, () => this.persons.managerEmail(person));
  }
}
