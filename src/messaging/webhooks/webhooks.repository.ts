import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { Paging } from '../../platform/http/param-types';

export interface EndpointRow {
  id: number;
  url: string;
  description: string;
  events: string[];
  enabled: boolean;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: Date | null;
  failing_since: Date | null;
  disabled_reason: string | null;
  created_at: Date;
  updated_at: Date;
  /** deliveries not yet delivered nor failed */
  waiting: number;
}

export interface AttemptRow {
  attempt_id: number;
  delivery_id: number;
  event_id: string;
  type: string;
  attempt: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  at: Date;
  delivery_state: 'pending' | 'sending' | 'delivered' | 'failed';
  next_attempt_at: Date;
}

/** The tenant's webhook endpoints and their delivery attempts (only TENANT_DB, so only this tenant's). */
@injectable()
export class WebhooksRepository {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  private endpoints() {
    const db = this.db;
    return db
      .table('webhook_endpoints as w')
      .select(
        'w.*',
        db.raw(`(select count(*)::int from ?? d where d.endpoint_id = w.id and d.state in ('pending', 'sending')) as waiting`, [db.ref('webhook_deliveries')]),
      );
  }

  list(): Promise<EndpointRow[]> {
    return this.endpoints().orderBy('w.id');
  }

  byId(id: number): Promise<EndpointRow | undefined> {
    return this.endpoints().where('w.id', id).first();
  }

  /** The endpoint row locked for the caller's transaction (a repository from `tx.get`). */
  async lockById(id: number): Promise<EndpointRow | undefined> {
    const row = await this.db.table('webhook_endpoints').where({ id }).forUpdate().first();
    return row ? { ...row, waiting: 0 } : undefined;
  }

  async insert(row: { url: string; description: string; events: string[]; secret: string }): Promise<number> {
    const [r] = await this.db.table('webhook_endpoints').insert(row).returning('id');
    return r.id;
  }

  async update(id: number, change: Record<string, unknown>): Promise<void> {
    await this.db
      .table('webhook_endpoints')
      .where({ id })
      .update({ ...change, updated_at: this.db.fn.now() });
  }

  async delete(id: number): Promise<void> {
    await this.db.table('webhook_endpoints').where({ id }).delete();
  }

  /** Attempts at this endpoint, newest first, with their event and the delivery's state now. */
  async attempts(endpointId: number, page: Paging): Promise<AttemptRow[]> {
    const rows = await this.db
      .table('webhook_attempts as a')
      .join('webhook_deliveries as d', 'd.id', 'a.delivery_id')
      .join('webhook_events as e', 'e.id', 'd.event_id')
      .where('a.endpoint_id', endpointId)
      .orderBy('a.id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .select(
        'a.id as attempt_id',
        'a.delivery_id',
        'e.uid as event_id',
        'e.type',
        'a.attempt',
        'a.status_code',
        'a.error',
        'a.duration_ms',
        'a.at',
        'd.state as delivery_state',
        'd.next_attempt_at',
      );
    return rows.map((r: AttemptRow) => ({ ...r, attempt_id: Number(r.attempt_id), delivery_id: Number(r.delivery_id) }));
  }
}
