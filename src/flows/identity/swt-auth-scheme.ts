import { injectable } from 'tsyringe';
import type { Request } from 'express';
import type { AuthScheme } from '../../platform/auth/auth-scheme';
import type { RequestScope } from '../../platform/tenant-scope/request-scope';
import type { Principal } from '../../platform/auth/principal';
import { SwtRejected, presentedSwt, swtRefusal, verifySwt } from '../../identity';
import { PrincipalLoader } from './principal-loader';
import { SwtUserFinder } from './swt-user-finder';

/**
 * `Authorization: SWT <token>` (the third party is master of credentials): identity checks the
 * token, the person it names is read from people. Every request carries its own token, so no
 * session is created.
 */
@injectable()
export class SwtAuthScheme implements AuthScheme {
  readonly name = 'swt';

  async authenticate(req: Request, scope: RequestScope): Promise<Principal | null> {
    const presented = presentedSwt(req, scope.tenant);
    if (!presented) return null;
    try {
      const params = verifySwt(presented.token, presented.checks);
      const account = await scope.container.resolve(SwtUserFinder).account(params);
      const principal = scope.container.resolve(PrincipalLoader).toPrincipal(account, 'swt');
      // The third party is master of credentials: our password's age is not its concern.
      return { ...principal, mustChangePassword: null };
    } catch (err) {
      if (err instanceof SwtRejected) throw swtRefusal(err);
      throw err;
    }
  }
}
