import { inject, injectable } from 'tsyringe';
import { ApiError } from '../../platform/errors/api-error';
import { verifyPassword } from '../../platform/auth/password-hasher';
import { TenantRateLimiter, type RateLimitRule } from '../../platform/rate-limit/tenant-rate-limiter';
import { PersonCredentials } from '../../people';

const WRONG_SIGNATURE_PASSWORDS: RateLimitRule = {
  name: 'sign-fail',
  points: 5,
  durationSeconds: 900,
  message: 'too many wrong passwords; try signing again later',
};

/**
 * A signature is given with the person's own password (people keeps it). Signing must not become a
 * way to guess one with a borrowed session: after 5 wrong passwords in 15 minutes it answers 429.
 */
@injectable()
export class SignatureCheck {
  constructor(
    @inject(PersonCredentials) private readonly credentials: PersonCredentials,
    @inject(TenantRateLimiter) private readonly limiter: TenantRateLimiter,
  ) {}

  /** 429 after too many wrong passwords, 420 for a wrong one (nothing is signed). */
  async assertOwnPassword(personId: number, password: string): Promise<void> {
    await this.limiter.assertBelow(WRONG_SIGNATURE_PASSWORDS, String(personId));
    if (!(await verifyPassword(await this.credentials.passwordHash(personId), password))) {
      await this.limiter.count(WRONG_SIGNATURE_PASSWORDS, String(personId));
      throw ApiError.malformed('password', 'is not correct; nothing was signed');
    }
    await this.limiter.reset(WRONG_SIGNATURE_PASSWORDS, String(personId));
  }
}
