import type { TenantDb } from '../../platform/tenancy/tenant-db';
import { joinPersons } from '../../people';

/** message.failed: the delivery that was given up, with its message and recipient, read in the failing transaction. */
export async function messageFailedData(db: TenantDb, deliveryId: number): Promise<Record<string, unknown> | null> {
  const q = db.table('message_deliveries as d').join('messages as m', 'm.id', 'd.message_id');
  const row = await joinPersons(q, 'r', 'm.recipient_id')
    .where('d.id', deliveryId)
    .first('d.id', 'd.message_id', 'd.medium', 'd.address', 'd.attempts', 'd.last_error', 'm.title', 'm.kind', 'm.recipient_id', 'r.user_name');
  if (!row) return null;
  return {
    delivery_id: Number(row.id),
    message_id: row.message_id,
    person_id: row.recipient_id,
    user_name: row.user_name,
    title: row.kind === 'password' ? `${row.title} (password mail)` : row.title,
    medium: row.medium,
    address: row.address,
    attempts: row.attempts,
    error: row.last_error,
  };
}
