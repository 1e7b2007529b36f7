import type { Knex } from 'knex';
import { joinPersons } from '../../people';

/**
 * The read model of messages with the names of their sender and recipient: a read of messaging's
 * messages as `m` (MessagesRepository.messageById / messagesTo, DeliveryAdminService.list) with
 * people's persons joined on m.recipient_id and m.sender_id. Still one statement; only a flow knows both.
 */
export function withUserNames(messages: Knex.QueryBuilder): Knex.QueryBuilder {
  return joinPersons(joinPersons(messages, 'r', 'm.recipient_id'), 's', 'm.sender_id', 'left').select(
    'r.user_name as recipient_user_name',
    's.user_name as sender_user_name',
  );
}
