import { inject, injectable } from 'tsyringe';
import type { Principal } from '../../platform/auth/principal';
import { PersonAccess, PersonDirectory, type TargetPerson } from '../../people';
import { PersonCompetenceRegistration, type RegistrationInput, type Standing } from '../../catalogue';
import { SignatureCheck } from './signature-check';

/**
 * PUT and DELETE /api/personcompetences/[competence_id]: the catalogue's rules per competence type,
 * with what people decides: how the caller stands to the person (self, their manager, a manager
 * acting on them), whether a signature's password is the person's own, and the registrar's user
 * name for the webhook event. The catalogue stores the registration and its event in one transaction.
 */
@injectable()
export class RegisterCompetenceFlow {
  constructor(
    @inject(PersonCompetenceRegistration) private readonly registrations: PersonCompetenceRegistration,
    @inject(PersonAccess) private readonly access: PersonAccess,
    @inject(PersonDirectory) private readonly persons: PersonDirectory,
    @inject(SignatureCheck) private readonly signatures: SignatureCheck,
  ) {}

  /** `person`: resolved and allowed by the route (self, or a manager acting on them, or a superuser). */
  async register(user: Principal, person: TargetPerson, competenceId: number, input: RegistrationInput) {
    const competence = await this.registrations.competence(competenceId);
    const { row, password } = this.registrations.build(user, person, competence, await this.standing(user, person), input);
    if (password !== undefined) await this.signatures.assertOwnPassword(person.id, password);
    const registrar = (await this.persons.userNames([user.personId])).get(user.personId) ?? null;
    const registration = await this.registrations.store(row, competence, person, registrar);
    return { registration, person, competence };
  }

  /** `person`: resolved and allowed by the route (self, their manager or a superuser). */
  async remove(user: Principal, person: TargetPerson, competenceId: number) {
    const competence = await this.registrations.competence(competenceId);
    const removed = await this.registrations.deleteAll(person, competence, await this.standing(user, person));
    return { ...removed, person };
  }

  private async standing(user: Principal, person: TargetPerson): Promise<Standing> {
    const [managedByCaller, asManager] = await Promise.all([this.access.canManagePerson(user, person), this.access.canActAsManagerOf(user, person)]);
    return { isSelf: person.id === user.personId, managedByCaller, asManager };
  }
}
