import { inject, injectable } from 'tsyringe';
import type { Logger } from 'pino';
import { ENV, LOGGER, TENANT_DB } from '../../platform/tokens';
import type { Env } from '../../platform/config/env';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import { UnitOfWork } from '../../platform/tenant-scope/unit-of-work';
import { WebhookTargets, type AttemptResult } from './webhook-targets';
import { WEBHOOK_TIMING, nextDelayMs, type WebhookTiming } from './webhook-timing';
import { signatureHeader } from './webhook-secret';

export type WebhookOutcome = { outcome: 'delivered' | 'failed' | 'skipped' } | { outcome: 'retry'; retryInMs: number; error: string };

interface Claimed {
  id: number;
  attempts: number;
  created_at: Date;
  endpoint_id: number;
  uid: string;
  body: string;
  url: string;
  enabled: boolean;
  secret: string;
  previous_secret: string | null;
  previous_valid: boolean;
}

/**
 * One attempt of one delivery, at least once: the row moves pending -> sending in one
 * conditional UPDATE, so two jobs for one row never send at once; a row left sending longer
 * than OUTBOX_REDELIVER_AFTER_SECONDS belongs to a worker that died and is claimed again.
 * The attempt, the delivery's new state and the endpoint's failure streak commit together.
 */
@injectable()
export class WebhookDeliverer {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
    @inject(WebhookTargets) private readonly targets: WebhookTargets,
    @inject(WEBHOOK_TIMING) private readonly timing: WebhookTiming,
    @inject(ENV) private readonly env: Env,
    @inject(LOGGER) private readonly logger: Logger,
  ) {}

  async deliver(deliveryId: number): Promise<WebhookOutcome> {
    const d = await this.claim(deliveryId);
    if (!d) return { outcome: 'skipped' };
    // An endpoint restored from an archive without secrets has none: it signs nothing until its secret is rotated.
    if (!d.enabled || !d.secret) {
      const why = d.enabled ? 'the endpoint has no signing secret (restored without secrets): rotate its secret' : 'the endpoint is disabled';
      // listed with the attempts, so the admin sees why the event never went out
      await this.uow.run(async (tx) => {
        const trx = tx.get(TENANT_DB);
        await trx
          .table('webhook_attempts')
          .insert({ delivery_id: d.id, endpoint_id: d.endpoint_id, attempt: d.attempts, status_code: null, error: `not sent: ${why}`, duration_ms: 0 });
        await trx
          .table('webhook_deliveries')
          .where({ id: d.id })
          .update({ state: 'failed', last_error: d.enabled ? 'no signing secret' : 'endpoint disabled', updated_at: trx.fn.now() });
      });
      return { outcome: 'failed' };
    }
    const timestamp = Math.floor(Date.now() / 1000);
    const secrets = d.previous_valid && d.previous_secret ? [d.secret, d.previous_secret] : [d.secret];
    const headers = { 'webhook-id': d.uid, 'webhook-timestamp': String(timestamp), 'webhook-signature': signatureHeader(d.uid, timestamp, d.body, secrets) };
    const result = await this.targets.post(d.url, headers, d.body);
    return this.uow.run((tx) => this.record(tx.get(TENANT_DB), d, result));
  }

  private async claim(deliveryId: number): Promise<Claimed | undefined> {
    const { rows } = await this.db.raw(
      `with c as (
         update ?? set state = 'sending', attempts = attempts + 1, next_attempt_at = now(), updated_at = now()
          where id = ? and (state = 'pending' or (state = 'sending' and updated_at < now() - make_interval(secs => ?)))
          returning *)
       select c.id, c.attempts, c.created_at, c.endpoint_id, e.uid, e.body, p.url, p.enabled, p.secret, p.previous_secret,
              coalesce(p.previous_secret_until > now(), false) as previous_valid
         from c join ?? e on e.id = c.event_id join ?? p on p.id = c.endpoint_id`,
      [this.db.ref('webhook_deliveries'), deliveryId, this.env.OUTBOX_REDELIVER_AFTER_SECONDS, this.db.ref('webhook_events'), this.db.ref('webhook_endpoints')],
    );
    const row = rows[0];
    return row ? { ...row, id: Number(row.id) } : undefined;
  }

  private async record(trx: TenantDb, d: Claimed, r: AttemptResult): Promise<WebhookOutcome> {
    await trx.table('webhook_attempts').insert({
      delivery_id: d.id,
      endpoint_id: d.endpoint_id,
      attempt: d.attempts,
      status_code: r.status,
      error: r.error,
      duration_ms: r.durationMs,
    });
    const deliveries = () => trx.table('webhook_deliveries').where({ id: d.id });
    if (r.error === null) {
      await deliveries().update({ state: 'delivered', last_status: r.status, last_error: null, delivered_at: trx.fn.now(), updated_at: trx.fn.now() });
      await trx.table('webhook_endpoints').where({ id: d.endpoint_id }).whereNotNull('failing_since').update({ failing_since: null, updated_at: trx.fn.now() });
      return { outcome: 'delivered' };
    }
    const disabled = await this.noteFailure(trx, d.endpoint_id);
    const delay = disabled ? null : nextDelayMs(this.timing, d.attempts, new Date(d.created_at));
    if (delay === null) {
      const why = disabled ? `endpoint disabled: ${disabled}` : `gave up after ${hours(this.timing.maxAgeMs)} h`;
      await deliveries().update({ state: 'failed', last_status: r.status, last_error: `${why}; last error: ${r.error}`, updated_at: trx.fn.now() });
      return { outcome: 'failed' };
    }
    await deliveries().update({
      state: 'pending',
      last_status: r.status,
      last_error: r.error,
      next_attempt_at: new Date(Date.now() + delay),
      updated_at: trx.fn.now(),
    });
    return { outcome: 'retry', retryInMs: delay, error: r.error };
  }

  /**
   * Starts or extends the endpoint's failure streak; an endpoint failing since disableAfterMs
   * is disabled and its other waiting deliveries failed. Returns the reason when it was disabled.
   */
  private async noteFailure(trx: TenantDb, endpointId: number): Promise<string | null> {
    const [ep] = await trx
      .table('webhook_endpoints')
      .where({ id: endpointId })
      .update({ failing_since: trx.raw('coalesce(failing_since, now())') })
      .returning(['failing_since']);
    if (!ep || Date.now() - new Date(ep.failing_since).getTime() < this.timing.disableAfterMs) return null;
    const reason = `every attempt failed since ${new Date(ep.failing_since).toISOString()} (${hours(this.timing.disableAfterMs) / 24} days); re-enable with PUT enabled=1`;
    await trx.table('webhook_endpoints').where({ id: endpointId }).update({ enabled: false, disabled_reason: reason, updated_at: trx.fn.now() });
    const n = await trx
      .table('webhook_deliveries')
      .where({ endpoint_id: endpointId, state: 'pending' })
      .update({ state: 'failed', last_error: 'endpoint disabled after continuous failures', updated_at: trx.fn.now() });
    this.logger.warn({ endpointId, failedDeliveries: n }, 'webhook endpoint disabled after continuous failures');
    return reason;
  }
}

const hours = (ms: number) => Math.round((ms / 3_600_000) * 100) / 100;
