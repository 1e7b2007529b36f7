import { inject, injectable } from 'tsyringe';
import { UnitOfWork } from '../../platform/tenant-scope/unit-of-work';
import { PENDING_PASSWORD_HOURS, PersonDirectory } from '../../people';
import { PasswordMailer, RECIPIENT_COLUMNS, type PasswordMailReason } from '../../messaging';

/**
 * A person gets a newly generated password by mail (forgot_password, send_login, the operator's
 * reset): people's contact of the person and how long a pending password works, messaging's mail
 * with its audit entry. The password itself is made when the mail is sent (DeliverMessagesFlow).
 * Bound to a transaction: `tx.get(NewPasswordMail)` inside the caller's (a person's creation
 * commits the mail with the person or not at all).
 */
@injectable()
export class NewPasswordMail {
  constructor(
    @inject(PersonDirectory) private readonly persons: PersonDirectory,
    @inject(PasswordMailer) private readonly mailer: PasswordMailer,
  ) {}

  /** False when the person is unknown or has neither e-mail nor mobile. */
  async write(personId: number, reason: PasswordMailReason): Promise<boolean> {
    const person = await this.persons.find({ id: personId }, RECIPIENT_COLUMNS);
    if (!person) return false;
    return this.mailer.write(person, reason, PENDING_PASSWORD_HOURS);
  }
}

/** The same mail in a transaction of its own (forgot_password, the operator's reset). */
@injectable()
export class MailNewPasswordFlow {
  constructor(@inject(UnitOfWork) private readonly uow: UnitOfWork) {}

  /** Queues the mail (SMS when the person has a mobile but no e-mail). False when the person cannot be reached. */
  send(personId: number, reason: PasswordMailReason): Promise<boolean> {
    return this.uow.run((tx) => tx.get(NewPasswordMail).write(personId, reason));
  }
}
