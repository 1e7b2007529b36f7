import { inject, injectable } from 'tsyringe';
import type { Logger } from 'pino';
import type { Transaction } from '../../platform/tenancy/unit-of-work';
import { NEW_PERSON_NOTIFIER, type NewPersonNotifier } from './new-person-notifier';
import { PersonsRepository } from './persons.repository';

export interface LoginSending {
  /** Runs in the transaction that creates the person. */
  write?(tx: Transaction, personId: number): Promise<void>;
  /** After the commit: the answer's message. */
  done(): Promise<string>;
}

/**
 * send_login: the login mail goes into the outbox in the transaction that creates the person.
 * A person who cannot be reached is still created (a retry of the POST would only hit "user
 * name taken"); a database error writing the mail fails the whole creation.
 */
@injectable()
export class NewPersonLogin {
  constructor(@inject(NEW_PERSON_NOTIFIER, { isOptional: true }) private readonly notifier: NewPersonNotifier | undefined) {}

  start(log: Logger): LoginSending {
    const notifier = this.notifier;
    if (!notifier) return { done: async () => 'person created; no login was sent: messaging is not available' };
    let sent = false;
    return {
      write: async (tx, personId) => {
        const row = await tx.get(PersonsRepository).findById(personId);
        try {
          await notifier.sendLogin({ personId, userName: row!.user_name }, tx);
          sent = true;
        } catch (err) {
          log.error({ err, personId }, 'sending the login of a new person failed');
        }
      },
      done: async () => {
        if (!sent) return 'person created, but the login could not be sent; use forgot_password';
        return 'person created; a login was sent';
      },
    };
  }
}
