import { inject, injectable } from 'tsyringe';
import type { Transaction } from '../../platform/tenant-scope/unit-of-work';
import type { PersonDataHolder, PersonKey, ExportPage } from '../../platform/privacy/personal-data';
import { joinPersons } from '../../people';
import { MessageData, type MessageOfPerson } from '../../messaging';

/**
 * The messages' part of a person's export and erasure (GDPR, PERSON_DATA): messaging's messages to
 * and from the person, with the user names of both parties (people's) joined on in the same read.
 */
@injectable()
export class MessagePersonData implements PersonDataHolder {
  constructor(@inject(MessageData) private readonly messages: MessageData) {}

  async export(person: PersonKey, page: ExportPage) {
    const rows: MessageOfPerson[] = await joinPersons(joinPersons(this.messages.messagesOf(person.id), 's', 'm.sender_id', 'left'), 'r', 'm.recipient_id')
      .select('r.user_name as user_name', 's.user_name as sender_user_name')
      .limit(page.limit)
      .offset(page.offset);
    return this.messages.export(person.id, rows);
  }

  erase(tx: Transaction, personId: number): Promise<void> {
    return this.messages.erase(tx, personId);
  }
}
