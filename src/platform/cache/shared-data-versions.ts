import { inject, injectable } from 'tsyringe';
import { REDIS } from '../tokens';
import type { RedisClient } from '../redis/redis-client';

/**
 * A tenant's data version shared by every API process, in Redis: a write request bumps it after its
 * transaction committed and before it answers, and TenantDataCache serves an entry only while it is
 * the one the entry was made under. Without it another process learnt of the write only when its
 * tenant_data_changed notification arrived, which may be after the writer's client has already asked
 * that process again (issue 42: the day mix's checker read a person back from the other process
 * right after PUT /api/persons/[user_name] and got the old name). The notifications stay: they cover
 * writes by other paths (workers, imports) and this process's own entries.
 */
@injectable()
export class SharedDataVersions {
  constructor(@inject(REDIS) private readonly redis: RedisClient) {}

  private key(schema: string): string {
    return `tenant-data-version:{${schema}}`;
  }

  /** After a write request's commit, before its answer. Redis away: the notification still arrives (as before). */
  async bump(schema: string): Promise<void> {
    await this.redis.incr(this.key(schema)).catch(() => undefined);
  }

  /** The version now; null when Redis cannot say (then nothing may be served from or kept in the cache). */
  async read(schema: string): Promise<string | null> {
    try {
      return (await this.redis.get(this.key(schema))) ?? '0';
    } catch {
      return null;
    }
  }
}
