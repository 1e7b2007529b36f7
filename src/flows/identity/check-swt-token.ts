import { inject, injectable } from 'tsyringe';
import { SwtChecker, SwtRejected, type SwtCheckInput, type SwtCheckResult } from '../../identity';
import { SwtUserFinder } from './swt-user-finder';

/**
 * The admin page's SWT checker: identity explains the token's own checks, then whether the user it
 * names exists among the tenant's persons, as the SWT sign-on would find them.
 */
@injectable()
export class CheckSwtTokenFlow {
  constructor(
    @inject(SwtChecker) private readonly checker: SwtChecker,
    @inject(SwtUserFinder) private readonly users: SwtUserFinder,
  ) {}

  /** For superusers only (the route's rule): a built token is a working credential. */
  async check(input: SwtCheckInput): Promise<{ checks: SwtCheckResult[]; token?: string }> {
    const { checks, token, claimed } = this.checker.check(input);
    // Reported for an unsigned token too: "which user would it be" helps find the mistake.
    if (claimed) checks.push(await this.userCheck(claimed));
    return { checks, ...(token ? { token } : {}) };
  }

  private async userCheck(params: Map<string, string>): Promise<SwtCheckResult> {
    try {
      const account = await this.users.account(params);
      return { check: 'user', ok: true, detail: `names ${account.user_name}` };
    } catch (err) {
      if (err instanceof SwtRejected) return { check: 'user', ok: false, detail: err.message };
      throw err;
    }
  }
}
