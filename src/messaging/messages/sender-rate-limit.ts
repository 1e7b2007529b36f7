import { inject, injectable } from 'tsyringe';
import { TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import type { Principal } from '../../platform/auth/principal';
import { TenantRateLimiter } from '../../platform/rate-limit/tenant-rate-limiter';

/**
 * messages.max_per_hour_per_sender: a fixed one-hour window per sender that starts with
 * their first message. Superusers are not counted (they run announcements for the tenant).
 */
@injectable()
export class SenderRateLimit {
  constructor(
    @inject(TenantRateLimiter) private readonly limits: TenantRateLimiter,
    @inject(TENANT) private readonly tenant: Tenant,
  ) {}

  async consume(user: Principal): Promise<void> {
    if (user.superuser) return;
    const points = this.tenant.config.get('messages.max_per_hour_per_sender');
    await this.limits.hit(
      { name: 'messages-per-sender', points, durationSeconds: 3600, message: `too many messages: at most ${points} per hour` },
      String(user.personId),
    );
  }
}
