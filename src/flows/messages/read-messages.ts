import { inject, injectable } from 'tsyringe';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import type { Paging } from '../../platform/http/param-types';
import { PersonAccess, PersonDirectory, type TargetPerson } from '../../people';
import { MessagesRepository, MessagesService, RECIPIENT_COLUMNS, type MessageView, type MessageWithNames } from '../../messaging';
import { withUserNames } from './user-names';

/**
 * GET /api/messages and /api/messages/[message_id]: messaging's messages with the user names of
 * sender and recipient (people's, joined on in the same statement), and for one message people's
 * check that the caller may read it.
 */
@injectable()
export class ReadMessagesFlow {
  constructor(
    @inject(MessagesRepository) private readonly repo: MessagesRepository,
    @inject(MessagesService) private readonly messages: MessagesService,
    @inject(PersonDirectory) private readonly persons: PersonDirectory,
    @inject(PersonAccess) private readonly access: PersonAccess,
  ) {}

  /** `person`: resolved and allowed by the route (self, their manager, a superuser). */
  async list(person: TargetPerson, page: Paging): Promise<MessageView[]> {
    const found: MessageWithNames[] = await withUserNames(this.repo.messagesTo(person.id, page.limit, page.offset));
    return this.messages.withDeliveries(found);
  }

  /** Recipient, their manager, a superuser, and the sender (who may follow what they sent). */
  async get(user: Principal, id: number): Promise<MessageView> {
    const found: MessageWithNames | undefined = await withUserNames(this.repo.messageById(id)).first();
    if (!found) throw ApiError.notFound(`message ${id}`);
    const [view] = await this.messages.withDeliveries([found]);
    if (view.message.sender_id !== user.personId) {
      const person = await this.persons.find({ id: view.message.recipient_id }, RECIPIENT_COLUMNS);
      await this.access.assert(user, person!, 'selfOrManager', 'read this message');
    }
    return view;
  }
}
