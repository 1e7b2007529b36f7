import { addMonths, dayIn, TenantClock } from '../platform/time/tenant-clock';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../platform/auth/principal';
import { ApiError } from '../platform/errors/api-error';
import { verifyPassword } from '../platform/auth/password-hasher';
import { CompetencesRepository } from '../competences/competences.repository';
import type { CompetenceRow } from '../competences/competence.row';
import { TargetPersons, type TargetPerson } from './target-person';
import { SignatureAttempts } from './signature-attempts';
import { PersonCompetencesRepository, type NewRegistration, type RegistrationRow } from './personcompetences.repository';
import { TENANT_DB } from '../platform/tokens';
import type { TenantDb } from '../platform/tenancy/tenant-db';
import { OUTBOUND_EVENTS, type OutboundEvents } from '../platform/outbound/outbound-events';

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

/** The rules of PUT /api/personcompetences/[competence_id], per competence type. */
@injectable()
export class PersonCompetenceRegistration {
  constructor(
    @inject(CompetencesRepository) private readonly competences: CompetencesRepository,
    @inject(PersonCompetencesRepository) private readonly repo: PersonCompetencesRepository,
    @inject(TargetPersons) private readonly persons: TargetPersons,
    @inject(SignatureAttempts) private readonly attempts: SignatureAttempts,
    @inject(TenantClock) private readonly clock: TenantClock,
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(OUTBOUND_EVENTS) private readonly events: OutboundEvents,
  ) {}

  async competence(id: number): Promise<CompetenceRow> {
    const c = await this.competences.byId(id);
    if (!c) throw ApiError.notFound(`competence ${id}`);
    return c;
  }

  async register(user: Principal, competenceId: number, input: RegistrationInput): Promise<{ registration: RegistrationRow; person: TargetPerson; competence: CompetenceRow }> {
    const c = await this.competence(competenceId);
    const person = await this.persons.find(user, input.user_name);
    if (!person.isSelf && !person.asManager) {
      throw ApiError.forbidden(`not authorised to register competences of ${person.user_name}: only the person, their manager (not someone they manage) or a superuser may`);
    }
    if (c.type === 'survey' || c.type === 'question') {
      throw new ApiError(409, 'surveys are answered with POST /api/surveyanswer, not registered');
    }
    if (input.file !== undefined) throw new ApiError(501, 'file upload on person competences is not implemented');
    for (const [param, types] of Object.entries(TYPE_PARAMS)) {
      if ((input as any)[param] !== undefined && !types.includes(c.type as never)) {
        throw ApiError.malformed(param, `does not apply to a competence of type ${c.type}`);
      }
    }
    const date = input.date ? isoDate(input.date) : this.clock.today();
    let validUntil = input.valid_until ? isoDate(input.valid_until) : c.valid_months ? addMonths(date, c.valid_months) : null;
    if (validUntil !== null && validUntil < date) throw ApiError.malformed('valid_until', 'must not be before date');
    const row: NewRegistration = {
      person_id: person.id,
      competence_id: c.id,
      passed: input.passed ?? 100,
      date,
      valid_until: validUntil,
      comments: input.comments ?? null,
      grade: null,
      school: null,
      graduation_year: null,
      skill_level: null,
      checked: null,
      signed: null,
      show_course_diploma: null,
      override: false,
      registered_by: user.personId,
    };
    if (c.type === 'checklist_item') this.checklistItem(c, person, input, row);
    else if (c.type === 'signature') await this.signature(person, input, row);
    else if (!person.asManager && !SELF_REGISTERED.includes(c.type)) {
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
    const registration = await this.repo.register(row, (db, created) =>
      this.events.record(db, 'personcompetence.registered', registrationData(created, c, person)),
    );
    await this.events.committed();
    return { registration, person, competence: c };
  }

  /** checked_by self: only the person; manager: only a manager/superuser; both: either. No action: a manager's override. */
  private checklistItem(c: CompetenceRow, person: TargetPerson, input: RegistrationInput, row: NewRegistration): void {
    if (input.action === undefined) {
      if (!person.asManager) {
        // A manager checking their own item would override what only their own manager may.
        if (person.isSelf && person.managedByCaller) throw ApiError.forbidden(`"${c.title}": a manager cannot override their own checklist item`);
        throw ApiError.missing('action');
      }
      Object.assign(row, { checked: true, override: true });
      return;
    }
    const by = c.checked_by ?? 'self';
    const allowed = by === 'both' ? person.isSelf || person.asManager : by === 'self' ? person.isSelf : person.asManager;
    if (!allowed) {
      const who = by === 'self' ? 'the person themselves' : 'a manager of the person or a superuser';
      throw ApiError.forbidden(`"${c.title}" is checked by ${who}`);
    }
    row.checked = input.action === 'on';
  }

  /** Only for oneself, and only with one's own correct password. */
  private async signature(person: TargetPerson, input: RegistrationInput, row: NewRegistration): Promise<void> {
    if (!person.isSelf) throw ApiError.forbidden('a signature can only be given by the person themselves');
    if (input.password === undefined || input.password === '') throw ApiError.missing('password');
    await this.attempts.assertAllowed(person.id);
    if (!(await verifyPassword(person.password_hash, input.password))) {
      await this.attempts.failed(person.id);
      throw ApiError.malformed('password', 'is not correct; nothing was signed');
    }
    await this.attempts.succeeded(person.id);
    row.signed = true;
  }

  async deleteAll(user: Principal, competenceId: number, userName: string | undefined) {
    const c = await this.competence(competenceId);
    const person = await this.persons.accessible(user, userName, 'remove competences');
    const selfMay = SELF_REGISTERED.includes(c.type) || c.type === 'signature' || (c.type === 'checklist_item' && c.checked_by !== 'manager');
    if (!person.asManager && !(person.isSelf && selfMay)) throw ApiError.forbidden(`a ${c.type} registration is removed by a manager or a superuser`);
    const current = (await this.repo.current(person.id)).find((r) => r.competence_id === c.id);
    const removed = await this.db.transaction(async (trx) => {
      const n = await this.repo.deleteAll(person.id, c.id, trx);
      if (n > 0) {
        await this.events.record(trx, 'personcompetence.deleted', {
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
    await this.events.committed();
    return { person, competence: c, registration: current, removed };
  }
}

/** personcompetence.registered: the registration as stored, with the competence and person it joins. */
function registrationData(r: RegistrationRow, c: CompetenceRow, person: TargetPerson): Record<string, unknown> {
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
    registered_by: r.registered_by_user_name,
  };
}
