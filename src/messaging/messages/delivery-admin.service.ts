import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import { TENANT, TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import { UnitOfWork } from '../../platform/tenant-scope/unit-of-work';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import type { Principal } from '../../platform/auth/principal';
import type { Paging } from '../../platform/http/param-types';
import { ApiError } from '../../platform/errors/api-error';
import { AuditTrail } from '../../platform/audit/audit-trail';
import { QueueRegistry } from '../../platform/queue/queue-registry';
import { OutboxSignal } from '../outbox/outbox-signal';
import { deliverJobId } from './delivery-jobs';
import type { DeliveryRow } from './messages.repository';
import { currentTraceparent } from '../../platform/tracing/tracing';

export type DeliveryFilterState = 'queued' | 'sent' | 'failed';

export interface DeliveryListRow extends DeliveryRow {
  title: string;
  kind: 'message' | 'password';
  created_at: Date;
  recipient_user_name: string;
  sender_user_name: string | null;
}

/** The tenant's deliveries for its superusers: what went out, what failed and why, and a retry. */
@injectable()
export class DeliveryAdminService {
  constructor(
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
    @inject(QueueRegistry) private readonly queues: QueueRegistry,
    @inject(OutboxSignal) private readonly signal: OutboxSignal,
  ) {}

  /**
   * A page of deliveries, failed first (they need attention), then newest: `message_deliveries as d`
   * joined to `messages as m`. A DeliveryListRow once a flow has joined the names of m.recipient_id
   * and m.sender_id on (they are people's).
   */
  list(filter: { state?: DeliveryFilterState; since: Date }, page: Paging): Knex.QueryBuilder {
    const q = this.db
      .table('message_deliveries as d')
      .join('messages as m', 'm.id', 'd.message_id')
      .where('m.created_at', '>=', filter.since)
      .select('d.*', 'm.title', 'm.kind', 'm.created_at')
      .orderByRaw("(d.state = 'failed') desc, d.id desc")
      .limit(page.limit)
      .offset(page.offset);
    // "sending" is an internal step; callers see it as queued.
    if (filter.state === 'queued') q.whereIn('d.state', ['queued', 'sending']);
    else if (filter.state) q.where('d.state', filter.state);
    return q;
  }

  /**
   * Puts a failed delivery back into the outbox, the way a new message enters it: state
   * queued, relayed_at null, then the relay's signal. The relay re-adds the job under the
   * same job id, which BullMQ ignores while the old job is kept, so the old job goes first,
   * inside the transaction: the relay cannot see the row before it is gone.
   */
  async retry(user: Principal, deliveryId: number): Promise<DeliveryRow> {
    const row = await this.uow.run(async (tx) => {
      const trx = tx.get(TENANT_DB);
      const found = await trx
        .table('message_deliveries as d')
        .join('messages as m', 'm.id', 'd.message_id')
        .where('d.id', deliveryId)
        .forUpdate('d')
        .first('d.*', 'm.kind');
      if (!found) throw ApiError.notFound(`delivery ${deliveryId}`);
      if (found.state !== 'failed')
        throw new ApiError(
          409,
          `delivery ${deliveryId} is ${found.state === 'sending' ? 'queued' : found.state}, not failed; only failed deliveries can be retried`,
        );
      await this.removeOldJob(found);
      const [updated] = await trx
        .table('message_deliveries')
        .where({ id: deliveryId })
        // the resend continues the retry's trace (tracing on), not the original request's
        .update({ state: 'queued', relayed_at: null, updated_at: trx.fn.now(), ...traceOf() })
        .returning('*');
      await tx.get(AuditTrail).record({
        type: 'delivery.retried',
        actor: user.userName,
        subject: String(deliveryId),
        details: { message_id: found.message_id, medium: found.medium, previous_error: found.last_error },
      });
      tx.afterCommit(() => this.signal.notify(this.tenant.id));
      return updated as DeliveryRow;
    });
    return row;
  }

  private async removeOldJob(d: DeliveryRow & { kind: string }): Promise<void> {
    const id = deliverJobId({ tenantId: this.tenant.id, messageId: d.message_id, deliveryId: d.id, medium: d.medium });
    const job = await this.queues.get(d.kind === 'password' ? 'mail-priority' : 'messages').getJob(id);
    if (!job) return;
    if (await job.isActive()) throw new ApiError(409, `delivery ${d.id} is still being processed; try again in a moment`);
    await job.remove();
  }
}

/** The retrying request's trace for the row, when tracing is on. */
function traceOf(): { traceparent?: string } {
  const traceparent = currentTraceparent();
  return traceparent ? { traceparent } : {};
}
