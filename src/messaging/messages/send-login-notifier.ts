import { inject, injectable } from 'tsyringe';
import type { Transaction } from '../../platform/tenancy/unit-of-work';
import { PENDING_PASSWORD_HOURS, PersonDirectory, type NewPersonNotifier } from '../../people';
import { PasswordMailer } from './password-mailer';
import { RECIPIENT_COLUMNS } from './recipients';

/** POST /api/persons send_login=1: the new person gets a password by the same path as forgot_password. */
@injectable()
export class SendLoginNotifier implements NewPersonNotifier {
  constructor(@inject(PasswordMailer) private readonly mailer: PasswordMailer) {}

  async sendLogin(person: { personId: number; userName: string }, tx: Transaction): Promise<void> {
    const recipient = await tx.get(PersonDirectory).find({ id: person.personId }, RECIPIENT_COLUMNS);
    const sent = !!recipient && (await this.mailer.write(tx, recipient, 'send_login', PENDING_PASSWORD_HOURS));
    if (!sent) throw new Error(`${person.userName} has neither e-mail nor mobile to send a login to`);
  }
}
