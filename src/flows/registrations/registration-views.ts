import { inject, injectable } from 'tsyringe';
import type { ViewName } from '../../platform/http/param-types';
import { PersonDirectory } from '../../people';
import { presentPersonCompetence, registrarIdsOf, type CompetenceState } from '../../catalogue';

/** One person competence to show, with what a list adds to it (mandatory, role_ids). */
export interface ShownState {
  state: CompetenceState;
  extra?: Record<string, unknown>;
}

/**
 * Person competences as the API shows them: the catalogue's states; the full view names whoever
 * registered each (people's directory, one read for the page).
 */
@injectable()
export class RegistrationViewsFlow {
  constructor(@inject(PersonDirectory) private readonly persons: PersonDirectory) {}

  async present(person: { user_name: string }, view: ViewName, shown: readonly ShownState[]): Promise<Record<string, unknown>[]> {
    const registrars = view === 'full' ? await this.persons.userNames(registrarIdsOf(shown.map((s) => s.state))) : undefined;
    return shown.map(({ state, extra }) => presentPersonCompetence(state, person.user_name, view, extra, registrars));
  }
}
