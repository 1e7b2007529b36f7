import { OUTBOUND_EVENTS } from '../../platform/outbound/outbound-events';
import { joinPersons } from '../../people';
import { MessagesRepository, messageFailedData, type FailedDeliveryEvent, type FailedDeliveryRow } from '../../messaging';

/**
 * message.failed for a delivery given up (by its job, or by the relay when it is too old), written
 * in the transaction that fails it: messaging's delivery and message with the recipient's user name
 * (people's) joined on, one statement, read only when some endpoint wants the event.
 */
export const recordMessageFailed: FailedDeliveryEvent = (tx, deliveryId) =>
  tx.get(OUTBOUND_EVENTS).record('message.failed', async () => {
    const row: (FailedDeliveryRow & { user_name: string }) | undefined = await joinPersons(
      tx.get(MessagesRepository).failedDelivery(deliveryId),
      'r',
      'm.recipient_id',
    ).first('r.user_name');
    return row ? messageFailedData(row, row.user_name) : null;
  });
