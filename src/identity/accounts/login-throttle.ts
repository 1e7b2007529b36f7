import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import { ApiError } from '../../platform/errors/api-error';
import { TenantRateLimiter, type RateLimitRule } from '../../platform/rate-limit/tenant-rate-limiter';
import { recordSecurityEvent } from '../../platform/audit';

/** ASVS 2.2.1: a guesser gets 5 tries per address in 15 minutes, 20 per user name in an hour. */
export const LOGIN_PAIR_LIMIT: RateLimitRule = {
  name: 'login:pair',
  points: 5,
  durationSeconds: 15 * 60,
  message: 'too many failed logins for this user name from this address; try again later',
};
export const LOGIN_USER_LIMIT: RateLimitRule = {
  name: 'login:user',
  points: 20,
  durationSeconds: 60 * 60,
  message: 'too many failed logins for this user name; try again later',
};

/**
 * Password checks of one user name (login and old_password alike). Every attempt is counted
 * before the password is verified, atomically in Redis, so throttled guessing costs no argon2
 * time and parallel guesses cannot slip past the check; a right password takes its count back.
 * Keys use the given user name whether or not it exists, so a 429 reveals nothing.
 */
@injectable()
export class LoginThrottle {
  constructor(
    @inject(TenantRateLimiter) private readonly limiter: TenantRateLimiter,
    @inject(TENANT_DB) private readonly db: TenantDb,
  ) {}

  private subjects(userName: string, ip: string) {
    const user = userName.toLowerCase();
    return { user, pair: `${user}\n${ip}` };
  }

  /** Counts an attempt; 429 (and a login.throttled event) once a limit is passed. */
  async attempt(userName: string, ip: string, check: 'login' | 'old_password' | 'oauth_token'): Promise<void> {
    const s = this.subjects(userName, ip);
    try {
      await this.limiter.hit(LOGIN_PAIR_LIMIT, s.pair);
      await this.limiter.hit(LOGIN_USER_LIMIT, s.user);
    } catch (err) {
      if (err instanceof ApiError && err.errorcode === 429) {
        await recordSecurityEvent(this.db, {
          type: 'login.throttled',
          actor: userName,
          subject: userName,
          ip,
          details: { check, retry_after_seconds: Number(err.headers['Retry-After']) },
        });
      }
      throw err;
    }
  }

  /**
   * Runs the password check of a counted attempt. When it ends without a verdict (the database or
   * Redis is away: it throws), the attempt is taken back, so an outage locks nobody out.
   */
  async deciding<T>(userName: string, ip: string, check: () => Promise<T>): Promise<T> {
    try {
      return await check();
    } catch (err) {
      const s = this.subjects(userName, ip);
      await this.limiter.uncount(LOGIN_PAIR_LIMIT, s.pair).catch(() => undefined);
      await this.limiter.uncount(LOGIN_USER_LIMIT, s.user).catch(() => undefined);
      throw err;
    }
  }

  /** The right password: the pair starts over, and the attempt no longer counts for the user name. */
  async succeeded(userName: string, ip: string): Promise<void> {
    const s = this.subjects(userName, ip);
    await this.limiter.reset(LOGIN_PAIR_LIMIT, s.pair);
    await this.limiter.uncount(LOGIN_USER_LIMIT, s.user);
  }
}
