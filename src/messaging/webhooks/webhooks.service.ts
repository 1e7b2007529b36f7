import { inject, injectable } from 'tsyringe';
import { TENANT, TENANT_DB } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import { UnitOfWork } from '../../platform/tenant-scope/unit-of-work';
import type { Principal } from '../../platform/auth/principal';
import type { Paging } from '../../platform/http/param-types';
import { ApiError } from '../../platform/errors/api-error';
import { AuditTrail } from '../../platform/audit/audit-trail';
import { WebhooksRepository, type AttemptRow, type EndpointRow } from './webhooks.repository';
import { WebhookTargets } from './webhook-targets';
import { newWebhookSecret } from './webhook-secret';
import { TEST_EVENT_TYPE, WebhookEventWriter } from './webhook-event-writer';

/** During this long after a rotation the previous secret signs too. */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

export interface EndpointInput {
  url: string;
  events: string[];
  description?: string;
}

export interface EndpointChange {
  url?: string;
  events?: string[];
  description?: string;
  enabled?: boolean;
}

/** Endpoint management (the routes admit superusers only); every change is in the security event log. */
@injectable()
export class WebhooksService {
  constructor(
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
    @inject(WebhooksRepository) private readonly repo: WebhooksRepository,
    @inject(WebhookTargets) private readonly targets: WebhookTargets,
    @inject(TENANT) private readonly tenant: Tenant,
  ) {}

  private async endpointFor(id: number): Promise<EndpointRow> {
    const row = await this.repo.byId(id);
    if (!row) throw ApiError.notFound(`webhook ${id}`);
    return row;
  }

  async list(): Promise<EndpointRow[]> {
    return this.repo.list();
  }

  get(id: number): Promise<EndpointRow> {
    return this.endpointFor(id);
  }

  async create(user: Principal, input: EndpointInput): Promise<EndpointRow> {
    const url = await this.targets.check(input.url);
    const events = [...new Set(input.events)];
    const id = await this.uow.run(async (tx) => {
      await this.assertBelowCap(tx.get(TENANT_DB));
      const newId = await tx.get(WebhooksRepository).insert({ url, events, description: input.description ?? '', secret: newWebhookSecret() });
      await tx.get(AuditTrail).record({ type: 'webhook.created', actor: user.userName, subject: String(newId), details: { url, events } });
      return newId;
    });
    return (await this.repo.byId(id))!;
  }

  /**
   * webhooks.max_endpoints (default 20): counted under a transaction lock of the tenant's endpoints,
   * so two creations at once cannot both take the last place. Past it 409: the tenant's state, not
   * the request, is in the way (delete an endpoint or raise the item).
   */
  private async assertBelowCap(trx: TenantDb): Promise<void> {
    const cap = this.tenant.config.get('webhooks.max_endpoints');
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`${this.tenant.schema}:webhook_endpoints`]);
    const [{ n }] = await trx.table('webhook_endpoints').count<{ n: string }[]>('* as n');
    if (Number(n) >= cap) {
      throw new ApiError(
        409,
        `this tenant has ${n} webhook endpoints, the most config item webhooks.max_endpoints allows (${cap}); delete one or raise the item`,
      );
    }
  }

  async update(user: Principal, id: number, input: EndpointChange): Promise<EndpointRow> {
    await this.endpointFor(id);
    const change: Record<string, unknown> = {};
    if (input.url !== undefined) change.url = await this.targets.check(input.url);
    if (input.events !== undefined) change.events = [...new Set(input.events)];
    if (input.description !== undefined) change.description = input.description;
    if (input.enabled !== undefined) {
      change.enabled = input.enabled;
      // enabling starts a fresh failure streak
      if (input.enabled) Object.assign(change, { failing_since: null, disabled_reason: null });
      else change.disabled_reason = `disabled by ${user.userName}`;
    }
    await this.uow.run(async (tx) => {
      const repo = tx.get(WebhooksRepository);
      if (!(await repo.lockById(id))) throw ApiError.notFound(`webhook ${id}`);
      await repo.update(id, change);
      const details = { ...input };
      await tx.get(AuditTrail).record({ type: 'webhook.updated', actor: user.userName, subject: String(id), details });
    });
    return (await this.repo.byId(id))!;
  }

  async delete(user: Principal, id: number): Promise<EndpointRow> {
    const row = await this.endpointFor(id);
    await this.uow.run(async (tx) => {
      await tx.get(WebhooksRepository).delete(id);
      await tx.get(AuditTrail).record({ type: 'webhook.deleted', actor: user.userName, subject: String(id), details: { url: row.url } });
    });
    return row;
  }

  /**
   * A new secret; the one it replaces keeps signing for ROTATION_OVERLAP_MS, so receivers can
   * switch without losing a message. A second rotation within that time drops the oldest.
   */
  async rotateSecret(user: Principal, id: number): Promise<EndpointRow> {
    await this.uow.run(async (tx) => {
      const repo = tx.get(WebhooksRepository);
      const row = await repo.lockById(id);
      if (!row) throw ApiError.notFound(`webhook ${id}`);
      const until = new Date(Date.now() + ROTATION_OVERLAP_MS);
      await repo.update(id, { secret: newWebhookSecret(), previous_secret: row.secret, previous_secret_until: until });
      await tx
        .get(AuditTrail)
        .record({ type: 'webhook.secret_rotated', actor: user.userName, subject: String(id), details: { previous_signs_until: until.toISOString() } });
    });
    return (await this.repo.byId(id))!;
  }

  /** A webhook.test event to this endpoint alone, through the outbox like any other. */
  async sendTest(user: Principal, id: number): Promise<{ endpoint: EndpointRow; eventId: string }> {
    const endpoint = await this.endpointFor(id);
    if (!endpoint.enabled) throw new ApiError(409, `webhook ${id} is disabled; enable it first (PUT enabled=1)`);
    const data = { webhook_id: id, user_name: user.userName, message: 'a test event sent from the admin console or POST /api/webhooks/[id]/test' };
    const { uid } = await this.uow.run((tx) => tx.get(WebhookEventWriter).writeTo(TEST_EVENT_TYPE, data, [id]));
    return { endpoint, eventId: uid };
  }

  async attempts(id: number, page: Paging): Promise<AttemptRow[]> {
    await this.endpointFor(id);
    return this.repo.attempts(id, page);
  }
}
