import { addMonths, dayIn, TenantClock } from '../../platform/time/tenant-clock';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import { CompetencesRepository } from '../competences/competences.repository';
import type { CompetenceRow } from '../competences/competence.row';
import { newRegistration, PersonCompetencesRepository, type NewRegistration, type RegistrationRow } from './personcompetences.repository';
import { UnitOfWork } from '../../platform/tenant-scope/unit-of-work';
import { isUniqueViolation } from '../../platform/errors/error-classes';
import { OUTBOUND_EVENTS } from '../../platform/outbound/outbound-events';

export interface RegistrationInput {
  user_name?: string;
  passed?: number;
  date?: Date;
  valid_until?: Date;
  comments?: string;
  file?: unknown;
  action?: 'on' | 'off';
  password?: string;
  show_course_diploma?: unknown;
  grade?: number;
  school?: string;
  graduation_year?: string;
  skill_level?: number;
}

const COURSE_TYPES = ['course', 'group', 'module', 'ecourse'];
/** Types a person may register for themselves (self-declared); the rest need a manager or superuser. */
const SELF_REGISTERED = ['formal', 'skill'];
/** Parameters that only make sense for some types; anything else is a 420 rather than silently ignored. */
const TYPE_PARAMS: Record<string, string[]> = {
  action: ['checklist_item'],
  password: ['signature'],
  show_course_diploma: COURSE_TYPES,
  grade: COURSE_TYPES,
  school: ['formal'],
  graduation_year: ['formal'],
  skill_level: ['skill'],
};

// date and valid_until are calendar days: a date-only parameter arrives as that day's UTC midnight
const isoDate = (d: Date) => dayIn('UTC', d);

/** The person a registration is about. */
export interface RegisteredPerson {
  id: number;
  user_name: string;
}

/** How the caller stands to the person a registration is about (people's access rules decide it). */
export interface Standing {
  isSelf: boolean;
  /** The caller is a superuser or manages the person's organisation (enough to read). */
  managedByCaller: boolean;
  /** The caller may use manager-only powers on the person (never on themself or their own manager). */
  asManager: boolean;
}

/**
 * The rules of PUT and DELETE /api/personcompetences/[competence_id], per competence type. How the
 * caller stands to the person, and whether a signature's password is right, the caller (a flow
 * over people) tells.
 */
@injectable()
export class PersonCompetenceRegistration {
  constructor(
    @inject(CompetencesRepository) private readonly competences: CompetencesRepository,
    @inject(PersonCompetencesRepository) private readonly repo: PersonCompetencesRepository,
    @inject(TenantClock) private readonly clock: TenantClock,
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
  ) {}

  async competence(id: number): Promise<CompetenceRow> {
    const c = await this.competences.byId(id);
    if (!c) throw ApiError.notFound(`competence ${id}`);
    return c;
  }

  /**
   * The registration `input` asks for, checked against the competence's rules and the caller's
   * standing. A signature comes with the password it must be given with (`password`): store it only
   * once that is found to be the person's own.
   */
  build(
    user: Principal,
    person: RegisteredPerson,
    c: CompetenceRow,
    standing: Standing,
    input: RegistrationInput,
  ): { row: NewRegistration; password?: string } {
    if (c.type === 'survey' || c.type === 'question') {
      throw new ApiError(409, 'surveys are answered with POST /api/surveyanswer, not registered');
    }
    if (input.file !== undefined) throw new ApiError(501, 'file upload on person competences is not implemented');
    for (const [param, types] of Object.entries(TYPE_PARAMS)) {
      if ((input as any)[param] !== undefined && !types.includes(c.type)) {
        throw ApiError.malformed(param, `does not apply to a competence of type ${c.type}`);
      }
    }
    const date = input.date ? isoDate(input.date) : this.clock.today();
    const validUntil = input.valid_until ? isoDate(input.valid_until) : c.valid_months ? addMonths(date, c.valid_months) : null;
    if (validUntil !== null && validUntil < date) throw ApiError.malformed('valid_until', 'must not be before date');
    const row: NewRegistration = newRegistration(
      { person_id: person.id, competence_id: c.id, passed: input.passed ?? 100, date, valid_until: validUntil, registered_by: user.personId },
      { comments: input.comments ?? null },
    );
    let password: string | undefined;
    if (c.type === 'checklist_item') this.checklistItem(c, standing, input, row);
    else if (c.type === 'signature') password = this.signature(standing, input, row);
    else if (!standing.asManager && !SELF_REGISTERED.includes(c.type)) {
      throw ApiError.forbidden(`a ${c.type} is registered by a manager or a superuser, not by the person`);
    }
    if (COURSE_TYPES.includes(c.type)) {
      row.grade = input.grade ?? null;
      // Present with any value: the person may download the diploma.
      row.show_course_diploma = input.show_course_diploma !== undefined ? true : null;
    }
    if (c.type === 'formal') Object.assign(row, { school: input.school ?? null, graduation_year: input.graduation_year ?? null });
    if (c.type === 'skill') {
      row.skill_level = input.skill_level ?? row.passed;
      if (input.passed === undefined && input.skill_level !== undefined) row.passed = input.skill_level;
    }
    return { row, password };
  }

  /** The live registrations (current and history) of these persons and competences, for an import's matching by (person, competence, date). */
  liveRegistrations(personIds: readonly number[], competenceIds: readonly number[]) {
    return this.repo.liveOf(personIds, competenceIds);
  }

  /**
   * One transaction: the registration and its webhook event (`registrar`: the user name of whoever
   * registers). Two identical registrations at once collide on person_competences_current; the loser
   * is tried again, now superseding the winner, as if the requests had come one after the other.
   */
  async store(row: NewRegistration, c: CompetenceRow, person: RegisteredPerson, registrar: string | null): Promise<RegistrationRow> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.uow.run(async (tx) => {
          const created = await tx.get(PersonCompetencesRepository).supersedeWith(row);
          await tx.get(OUTBOUND_EVENTS).record('personcompetence.registered', registrationData(created, c, person, registrar));
          return created;
        });
      } catch (err) {
        if (attempt >= 5 || !isUniqueViolation(err)) throw err;
      }
    }
  }

  /** checked_by self: only the person; manager: only a manager/superuser; both: either. No action: a manager's override. */
  private checklistItem(c: CompetenceRow, standing: Standing, input: RegistrationInput, row: NewRegistration): void {
    if (input.action === undefined) {
      if (!standing.asManager) {
        // A manager checking their own item would override what only their own manager may.
        if (standing.isSelf && standing.managedByCaller) throw ApiError.forbidden(`"${c.title}": a manager cannot override their own checklist item`);
        throw ApiError.missing('action');
      }
      Object.assign(row, { checked: true, override: true });
      return;
    }
    const by = c.checked_by ?? 'self';
    const allowed = by === 'both' ? standing.isSelf || standing.asManager : by === 'self' ? standing.isSelf : standing.asManager;
    if (!allowed) {
      const who = by === 'self' ? 'the person themselves' : 'a manager of the person or a superuser';
      throw ApiError.forbidden(`"${c.title}" is checked by ${who}`);
    }
    row.checked = input.action === 'on';
  }

  /** Only for oneself, and only with one's own password: the one returned, for the caller to check. */
  private signature(standing: Standing, input: RegistrationInput, row: NewRegistration): string {
    if (!standing.isSelf) throw ApiError.forbidden('a signature can only be given by the person themselves');
    if (input.password === undefined || input.password === '') throw ApiError.missing('password');
    row.signed = true;
    return input.password;
  }

  /** Removes every registration of competence `c` for the person; 404 when there was none. */
  async deleteAll(person: RegisteredPerson, c: CompetenceRow, standing: Standing) {
    const selfMay = SELF_REGISTERED.includes(c.type) || c.type === 'signature' || (c.type === 'checklist_item' && c.checked_by !== 'manager');
    if (!standing.asManager && !(standing.isSelf && selfMay)) throw ApiError.forbidden(`a ${c.type} registration is removed by a manager or a superuser`);
    const current = (await this.repo.current(person.id)).find((r) => r.competence_id === c.id);
    const removed = await this.uow.run(async (tx) => {
      const n = await tx.get(PersonCompetencesRepository).deleteAll(person.id, c.id);
      if (n > 0) {
        await tx.get(OUTBOUND_EVENTS).record('personcompetence.deleted', {
          personcompetence_id: current?.id ?? null,
          competence_id: c.id,
          title: c.title,
          type: c.type,
          person_id: person.id,
          user_name: person.user_name,
          removed: n,
        });
      }
      return n;
    });
    if (removed === 0) throw ApiError.notFound(`registration of "${c.title}" for ${person.user_name}`);
    return { person, competence: c, registration: current, removed };
  }
}

/** personcompetence.registered: the registration as stored, with the competence and person it joins. */
export function registrationData(r: RegistrationRow, c: CompetenceRow, person: RegisteredPerson, registrar: string | null): Record<string, unknown> {
  return {
    personcompetence_id: r.id,
    competence_id: c.id,
    title: c.title,
    type: c.type,
    person_id: person.id,
    user_name: person.user_name,
    passed: r.passed,
    date: r.date,
    valid_until: r.valid_until,
    registered_by: registrar,
  };
}
