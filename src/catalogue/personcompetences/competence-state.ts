import { inject, injectable } from 'tsyringe';
import type { CompetenceRow } from '../competences/competence.row';
import { CompetencesRepository } from '../competences/competences.repository';
import { PersonCompetencesRepository, type RegistrationRow } from './personcompetences.repository';
import { TenantClock } from '../../platform/time/tenant-clock';

export type MissingReason = 'not_registered' | 'expired' | 'not_passed' | 'not_checked' | 'not_signed' | 'items_missing';

export interface CompetenceState {
  competence: CompetenceRow;
  registration: RegistrationRow | undefined;
  held: boolean;
  reason: MissingReason | null;
  /** Checklist items of a checklist, with their own states. */
  children: CompetenceState[];
}

/**
 * Whether a person holds a competence now: a current registration, not expired
 * (valid_until >= today, the tenant's calendar day `now`), passed > 0, and per type: a checklist item checked (or overridden
 * by a manager), a signature signed. A checklist is held when all of its items are held,
 * or when a manager registered the checklist itself.
 */
export function stateOf(c: CompetenceRow, reg: RegistrationRow | undefined, children: CompetenceState[], now: string): CompetenceState {
  const own = ownReason(c, reg, now);
  if (c.type === 'checklist') {
    const itemsHeld = children.length > 0 && children.every((k) => k.held);
    const held = own === null || itemsHeld;
    return { competence: c, registration: reg, held, reason: held ? null : reg ? own : 'items_missing', children };
  }
  return { competence: c, registration: reg, held: own === null, reason: own, children };
}

function ownReason(c: CompetenceRow, reg: RegistrationRow | undefined, now: string): MissingReason | null {
  if (!reg) return 'not_registered';
  if (reg.valid_until !== null && reg.valid_until < now) return 'expired';
  if (c.type === 'checklist_item') return reg.checked || reg.override ? null : 'not_checked';
  if (c.type === 'signature') return reg.signed ? null : 'not_signed';
  if (reg.passed <= 0) return 'not_passed';
  return null;
}

@injectable()
export class CompetenceStates {
  constructor(
    @inject(CompetencesRepository) private readonly competences: Pick<CompetencesRepository, 'byIds' | 'descendants'>,
    @inject(PersonCompetencesRepository) private readonly registrations: Pick<PersonCompetencesRepository, 'current'>,
    @inject(TenantClock) private readonly clock: Pick<TenantClock, 'today'>,
  ) {}

  /** States of the given competences for a person (checklists with their items). */
  async evaluate(personId: number, competenceIds: number[], regs?: RegistrationRow[]): Promise<CompetenceState[]> {
    if (competenceIds.length === 0) return [];
    const current = regs ?? (await this.registrations.current(personId));
    const byCompetence = new Map(current.map((r) => [r.competence_id, r]));
    const rows = await this.competences.byIds(competenceIds);
    const items = await this.competences.descendants(rows.filter((r) => r.type === 'checklist').map((r) => r.id));
    const now = this.clock.today();
    return rows.map((c) => {
      const children = items.filter((i) => i.parent_id === c.id).map((i) => stateOf(i, byCompetence.get(i.id), [], now));
      return stateOf(c, byCompetence.get(c.id), children, now);
    });
  }
}
