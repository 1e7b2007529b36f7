import { inject, injectable } from 'tsyringe';
import { UnitOfWork, type Transaction } from '../../platform/tenant-scope/unit-of-work';
import { PENDING_PASSWORD_HOURS, PersonDirectory } from '../../people';
import { PasswordMailer, RECIPIENT_COLUMNS, type PasswordMailReason } from '../../messaging';

/**
 * A person gets a newly generated password by mail (forgot_password, send_login, the operator's
 * reset): people's contact of the person and how long a pending password works, messaging's mail
 * with its audit entry. The password itself is made when the mail is sent (DeliverMessagesFlow).
 */
@injectable()
export class MailNewPasswordFlow {
  constructor(@inject(UnitOfWork) private readonly uow: UnitOfWork) {}

  /** Queues the mail in a transaction of its own (SMS when the person has a mobile but no e-mail). False when the person cannot be reached. */
  send(personId: number, reason: PasswordMailReason): Promise<boolean> {
    return this.uow.run((tx) => this.write(tx, personId, reason));
  }

  /**
   * Writes the mail and its audit entry in the caller's transaction (a person's creation commits
   * them with its own change or not at all). False when the person has neither e-mail nor mobile.
   */
  async write(tx: Transaction, personId: number, reason: PasswordMailReason): Promise<boolean> {
    const person = await tx.get(PersonDirectory).find({ id: personId }, RECIPIENT_COLUMNS);
    if (!person) return false;
    return tx.get(PasswordMailer).write(tx, person, reason, PENDING_PASSWORD_HOURS);
  }
}
