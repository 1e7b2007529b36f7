import { inject, injectable } from 'tsyringe';
import { TenantRateLimiter, type RateLimitRule } from '../../platform/rate-limit/tenant-rate-limiter';

const WRONG_SIGNATURE_PASSWORDS: RateLimitRule = {
  name: 'sign-fail',
  points: 5,
  durationSeconds: 900,
  message: 'too many wrong passwords; try signing again later',
};

/**
 * Signing checks the password, so it must not become a way to guess one with a
 * borrowed session: after 5 wrong passwords in 15 minutes signing answers 429.
 */
@injectable()
export class SignatureAttempts {
  constructor(@inject(TenantRateLimiter) private readonly limiter: TenantRateLimiter) {}

  async assertAllowed(personId: number): Promise<void> {
    await this.limiter.assertBelow(WRONG_SIGNATURE_PASSWORDS, String(personId));
  }

  async failed(personId: number): Promise<void> {
    await this.limiter.count(WRONG_SIGNATURE_PASSWORDS, String(personId));
  }

  async succeeded(personId: number): Promise<void> {
    await this.limiter.reset(WRONG_SIGNATURE_PASSWORDS, String(personId));
  }
}
