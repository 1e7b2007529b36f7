import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import { DELIVERY_COLUMNS, PRIORITY, STORED, stored, type Medium, type NewMessage, type StoredMessage, type DeliveryRow } from './message-rows';
import { MessageInsertBatcher } from './message-insert-batcher';
import { currentTraceparent } from '../../platform/tracing/tracing';
import type { RecipientsByUserName, ToUserName, ToUserNameResult } from './insert-to-user-name';

export type { Medium, SendMedium, DeliveryState, MessageRow, DeliveryRow, MessageWithNames, NewMessage, StoredMessage } from './message-rows';

/**
 * Messages and their deliveries; the deliveries not yet relayed are the outbox. The reads that name
 * the sender and the recipient return a query on `messages as m` (m.sender_id, m.recipient_id):
 * user names are people's, so a flow joins them on (src/flows/messages/user-names.ts) and runs it.
 */
@injectable()
export class MessagesRepository {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(MessageInsertBatcher) private readonly batcher: MessageInsertBatcher,
  ) {}

  /**
   * The message and its outbox rows in one statement (so both or neither, without a
   * transaction's extra round trips); returns both as stored. Both inserts are named statements
   * (TenantDb.prepared): planned once per connection, not per message.
   */
  async insert(m: NewMessage): Promise<StoredMessage> {
    const { deliveries, ...message } = m;
    const { rows } = await this.db.prepared(
      'messages.insert',
      `with m as (
         insert into ?? (kind, sender_id, recipient_id, title, text, cc, reply_to, send_medium, html)
         values (?, ?, ?, ?, ?, ?::text[], ?, ?, ?) returning *),
       d as (
         insert into ?? (message_id, medium, address, priority, traceparent)
         select m.id, x.medium, x.address, ${PRIORITY}, ?::text from m, jsonb_to_recordset(?::jsonb) as x(medium text, address text)
         returning *)
       ${STORED} from m`,
      [
        this.db.ref('messages'),
        message.kind,
        message.sender_id,
        message.recipient_id,
        message.title,
        message.text,
        message.cc,
        message.reply_to,
        message.send_medium,
        message.html ?? null,
        this.db.ref('message_deliveries'),
        currentTraceparent(),
        JSON.stringify(deliveries),
      ],
    );
    return stored(rows[0]);
  }

  /**
   * Finds the recipient by user name and stores the message with one delivery per medium to the
   * recipient's address, in one statement (`insert-to-user-name.ts`); messages of the tenant that
   * wait meanwhile go together in one statement (`MessageInsertBatcher`). person: undefined when
   * there is no such person; stored: undefined when the recipient lacks an address for one of the
   * media (nothing is written then). `recipients`: the flow's sub-queries of persons.
   */
  insertToUserName(recipients: RecipientsByUserName, userName: string, message: ToUserName['message'], media: readonly Medium[]): Promise<ToUserNameResult> {
    return this.batcher.insertToUserName(this.db, recipients, { userName, message, media });
  }

  /** Message `id` (m.*), for a read of MessageWithNames: at most one row. */
  messageById(id: number): Knex.QueryBuilder {
    return this.db.table('messages as m').select('m.*').where('m.id', id);
  }

  /** A page of the messages to a person, newest first (m.*), for a read of MessageWithNames. */
  messagesTo(recipientId: number, limit: number, offset: number): Knex.QueryBuilder {
    return this.db.table('messages as m').select('m.*').where('m.recipient_id', recipientId).orderBy('m.id', 'desc').limit(limit).offset(offset);
  }

  /**
   * The delivery given up with its message (`message_deliveries as d` joined to `messages as m`,
   * FailedDeliveryRow), for the message.failed event, which adds the recipient's (m.recipient_id) user name.
   */
  failedDelivery(deliveryId: number): Knex.QueryBuilder {
    return this.db
      .table('message_deliveries as d')
      .join('messages as m', 'm.id', 'd.message_id')
      .where('d.id', deliveryId)
      .select('d.id', 'd.message_id', 'd.medium', 'd.address', 'd.attempts', 'd.last_error', 'm.title', 'm.kind', 'm.recipient_id');
  }

  async deliveriesOf(messageIds: number[]): Promise<DeliveryRow[]> {
    if (messageIds.length === 0) return [];
    return this.db
      .table('message_deliveries')
      .whereIn('message_id', messageIds)
      .orderBy('medium')
      .select([...DELIVERY_COLUMNS]);
  }
}
