import type { Transaction } from '../../platform/tenant-scope/unit-of-work';

/**
 * Records message.failed for a delivery given up, in the transaction that fails it. The event names
 * the recipient by user name, which is people's: a flow gives this to the delivery and the relay.
 */
export type FailedDeliveryEvent = (tx: Transaction, deliveryId: number) => Promise<void>;

/** A delivery given up with its message, as MessagesRepository.failedDelivery reads it. */
export interface FailedDeliveryRow {
  id: number | string;
  message_id: number;
  medium: string;
  address: string;
  attempts: number;
  last_error: string | null;
  title: string;
  kind: string;
  recipient_id: number;
}

/** The data of message.failed: the delivery given up, with its message and recipient. */
export function messageFailedData(row: FailedDeliveryRow, recipientUserName: string): Record<string, unknown> {
  return {
    delivery_id: Number(row.id),
    message_id: row.message_id,
    person_id: row.recipient_id,
    user_name: recipientUserName,
    title: row.kind === 'password' ? `${row.title} (password mail)` : row.title,
    medium: row.medium,
    address: row.address,
    attempts: row.attempts,
    error: row.last_error,
  };
}
