import { inject, injectable, type DependencyContainer, type InjectionToken } from 'tsyringe';
import type { RedisClient } from '../../platform/redis/redis-client';
import type { Logger } from 'pino';
import { Mutex } from 'redis-semaphore';
import { LOGGER } from '../../platform/tokens';
import { QUEUE_PREFIX, QUEUE_REDIS, ROOT_CONTAINER } from '../../platform/queue/job-definition';
import { TenantStore } from '../../platform/tenant-scope/tenant-store';
import { TenantResolver } from '../../platform/tenant-scope/tenant-resolver';
import { openTenantScope } from '../../platform/tenant-scope/request-scope';
import { SendExpiryRemindersFlow, type TenantScanResult } from './send-expiry-reminders';
import { CLUSTERS, type Clusters } from '../../platform/clusters/clusters';
import { CLOCK, type Clock } from '../../platform/time/tenant-clock';
import { tenantsWithDueReminders, type ReminderCandidates } from './reminder-candidates';

export interface ReminderScanOptions {
  /** How long the scan lock outlives a holder that stopped refreshing it (a killed worker). */
  lockTimeoutMs: number;
  /** Tenants this process scans (tests share one database); all when absent. */
  onlyTenants?: readonly number[];
}
export const REMINDER_SCAN_OPTIONS: InjectionToken<ReminderScanOptions> = Symbol('ReminderScanOptions');
export const DEFAULT_REMINDER_SCAN_OPTIONS: ReminderScanOptions = { lockTimeoutMs: 60_000 };

/** The one scan lock of a queue prefix (redis-semaphore stores it as mutex:<key>). */
export function scanLockKey(queuePrefix: string): string {
  return `platform:reminders:${queuePrefix}:scan`;
}

export interface ScanSummary extends TenantScanResult {
  tenants: number;
  failedTenants: number;
  /** The lock was lost (Redis away longer than lockTimeoutMs): the scan stopped early. */
  stoppedEarly: boolean;
}

/**
 * The reminder scan over every active tenant, one at a time across all worker processes: it
 * runs only while holding a Redis lock (redis-semaphore Mutex, refreshed while the scan runs,
 * expiring lockTimeoutMs after a holder dies). A scan that finds the lock taken returns 'busy'
 * at once. The lock only saves work: duplicates are excluded by the reminder rows themselves.
 */
@injectable()
export class ReminderScan {
  constructor(
    @inject(ROOT_CONTAINER) private readonly root: DependencyContainer,
    @inject(QUEUE_REDIS) private readonly redis: RedisClient,
    @inject(QUEUE_PREFIX) private readonly prefix: string,
    @inject(LOGGER) private readonly logger: Logger,
    @inject(TenantStore) private readonly store: TenantStore,
    @inject(TenantResolver) private readonly tenants: TenantResolver,
    @inject(REMINDER_SCAN_OPTIONS) private readonly options: ReminderScanOptions,
    @inject(CLUSTERS) private readonly clusters: Clusters,
    @inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The batched check of which tenants have anything due; null (visit them all) when it fails. */
  private async candidates(rows: readonly { id: number; schema_name: string; cluster: string }[]): Promise<ReminderCandidates | null> {
    try {
      const tenants = rows.map((r) => ({ id: r.id, schema: r.schema_name, cluster: r.cluster }));
      return await tenantsWithDueReminders(this.store, this.clusters, tenants, this.clock.now());
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'reminder scan: the check for due reminders failed; visiting every tenant');
      return null;
    }
  }

  async run(): Promise<ScanSummary | 'busy'> {
    let lost = false;
    const lock = new Mutex(this.redis, scanLockKey(this.prefix), {
      lockTimeout: this.options.lockTimeoutMs,
      refreshInterval: Math.max(100, Math.floor(this.options.lockTimeoutMs / 3)),
      acquireAttemptsLimit: 1,
      onLockLost: (err) => {
        lost = true;
        this.logger.warn({ err: err.message }, 'reminder scan lost its lock; stopping (the next scan goes on)');
      },
    });
    if (!(await lock.tryAcquire())) {
      this.logger.info('reminder scan skipped: another scan is running');
      return 'busy';
    }
    const started = Date.now();
    const sum: ScanSummary = { tenants: 0, failedTenants: 0, stoppedEarly: false, email: 0, sms: 0, noContact: 0, turnedOff: 0, taken: 0 };
    try {
      const rows = (await this.store.list()).filter(
        (row) => row.status === 'active' && (!this.options.onlyTenants || this.options.onlyTenants.includes(row.id)),
      );
      const candidates = await this.candidates(rows);
      for (const row of rows) {
        if (lost) break;
        if (candidates?.checked.has(row.id) && !candidates.due.has(row.id)) {
          sum.tenants++; // nothing due: settled by the check, no visit
          continue;
        }
        try {
          const r = await this.scanTenant(row.id, () => lost);
          if (!r) continue;
          sum.tenants++;
          sum.email += r.email;
          sum.sms += r.sms;
          sum.noContact += r.noContact;
          sum.turnedOff += r.turnedOff;
          sum.taken += r.taken;
        } catch (err) {
          // one tenant's failure (schema mid-migration, statement timeout) must not stop the others
          sum.failedTenants++;
          this.logger.warn({ err: (err as Error).message, tenantId: row.id }, 'reminder scan of a tenant failed; the next scan retries it');
        }
      }
    } finally {
      sum.stoppedEarly = lost;
      await lock.release().catch(() => {});
    }
    this.logger.info({ ...sum, ms: Date.now() - started }, 'reminder scan done');
    return sum;
  }

  private async scanTenant(tenantId: number, cancelled: () => boolean): Promise<TenantScanResult | null> {
    const tenant = await this.tenants.byTenantId(tenantId);
    if (!tenant || tenant.status !== 'active') return null;
    try {
      return await openTenantScope(this.root, tenant).resolve(SendExpiryRemindersFlow).scan(cancelled);
    } catch (err) {
      // a schema not migrated to 100_expiry_reminders yet
      if ((err as { code?: string }).code === '42P01') return null;
      throw err;
    }
  }
}
