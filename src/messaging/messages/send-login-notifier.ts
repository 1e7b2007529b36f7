import { inject, injectable } from 'tsyringe';
import { TRANSACTION, type Transaction } from '../../platform/tenancy/unit-of-work';
import { PasswordMailer } from './password-mailer';

/**
 * POST /api/persons send_login=1: the new person gets a password by the same path as
 * forgot_password. Got by `tx.get(SendLoginNotifier)` in the transaction that creates the person,
 * so the person and the mail commit together (a crash in between cannot lose the mail).
 */
@injectable()
export class SendLoginNotifier {
  constructor(
    @inject(PasswordMailer) private readonly mailer: PasswordMailer,
    @inject(TRANSACTION) private readonly tx: Transaction,
  ) {}

  /** Throws when the person has neither e-mail nor mobile to send a login to. */
  async sendLogin(person: { personId: number; userName: string }): Promise<void> {
    const sent = await this.mailer.write(this.tx, person.personId, 'send_login');
    if (!sent) throw new Error(`${person.userName} has neither e-mail nor mobile to send a login to`);
  }
}
