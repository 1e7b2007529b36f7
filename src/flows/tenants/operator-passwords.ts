import { inject, injectable, type DependencyContainer } from 'tsyringe';
import { ApiError } from '../../platform/errors/api-error';
import { ROOT_CONTAINER } from '../../platform/queue/job-definition';
import { PersonDirectory } from '../../people';
import type { PasswordMailReason } from '../../messaging';
import { TenantOperator, type OperatorOrigin, type TenantSummary } from '../../tenancy';
import { MailNewPasswordFlow } from '../passwords/mail-new-password';

/**
 * The operator's password mails (CLI and /platform), outside any tenant: a new tenant's first
 * superuser, and a reset of anyone's password. Tenancy opens the tenant's scope (and creates the
 * tenant); in that scope people finds the person and messaging queues the mail through the outbox
 * in a transaction of its own. The person must change the password at login (418);
 * the old one keeps working until then.
 */
@injectable()
export class OperatorPasswordsFlow {
  constructor(@inject(ROOT_CONTAINER) private readonly root: DependencyContainer) {}

  /** A new tenant with a root organisation named after it and its first superuser, who is mailed a password. */
  async createWithAdmin(
    origin: OperatorOrigin,
    input: { slug: string; name: string; hosts: string[]; mailFrom?: unknown; cluster?: string },
    admin: unknown,
    onProgress?: (line: string) => void,
  ): Promise<TenantSummary> {
    const { summary, admin: first } = await new TenantOperator(this.root, origin).importWithAdmin(input, admin, onProgress);
    await this.mailPassword(origin, summary.slug, first.user_name, 'send_login');
    return summary;
  }

  /** A new password by mail; audited as password.reset with actor operator. */
  async resetPassword(origin: OperatorOrigin, slug: string, userName: string): Promise<{ user_name: string }> {
    await this.mailPassword(origin, slug, userName, 'operator_reset');
    return { user_name: userName };
  }

  private async mailPassword(origin: OperatorOrigin, slug: string, userName: string, reason: PasswordMailReason): Promise<void> {
    const { container } = await new TenantOperator(this.root, origin).tenantScope(slug);
    const person = await container.resolve(PersonDirectory).find({ user_name: userName }, ['id']);
    if (!person) throw new ApiError(404, `person ${userName} not found in tenant ${slug}`);
    const sent = await container.resolve(MailNewPasswordFlow).send(person.id, reason);
    if (!sent) throw new ApiError(409, `${userName} has neither e-mail nor mobile to send a password to`);
  }
}
