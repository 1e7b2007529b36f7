import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import { TRANSACTION, type Transaction } from '../../platform/tenant-scope/unit-of-work';
import { OUTBOUND_EVENTS } from '../../platform/outbound/outbound-events';
import { addMonths } from '../../platform/time/tenant-clock';
import type { CompetenceRow } from '../competences/competence.row';
import { newRegistration, PersonCompetencesRepository, type RegistrationRow } from './personcompetences.repository';
import { registrationData, type RegisteredPerson } from './personcompetence-registration';

/** A registration a sign-on's results created and that is not deleted; `current` = neither superseded nor deleted. */
export interface ResultRegistrationRow {
  id: number;
  competence_id: number;
  current: boolean;
}

/** What a passing result registers: the competence, on the day the event ended, by whom. */
export interface ResultRegistrationInput {
  person: RegisteredPerson;
  competence: CompetenceRow;
  /** The sign-on (courses' person_events id) whose results create it. */
  personEventId: number;
  /** YYYY-MM-DD: the event's end in the tenant's time zone. */
  date: string;
  passed: number;
  grade: number | null;
  registrar: { id: number; user_name: string };
}

/** The effective pass mark of a competence: its own, else 100. */
export const passMarkOf = (c: Pick<CompetenceRow, 'pass_mark'>): number => c.pass_mark ?? 100;

/**
 * Registrations made by results (PUT /api/participants): each row carries the sign-on that made
 * it (person_competences.person_event_id), so a correction removes exactly those and nothing else.
 * Only within a transaction (`tx.get(ResultRegistrations)`): each change writes its webhook event
 * (personcompetence.registered / .deleted) in it.
 */
@injectable()
export class ResultRegistrations {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(TRANSACTION) private readonly tx: Transaction,
  ) {}

  /** The live (not deleted) registrations the sign-on's results created, current or since superseded. */
  async linked(personEventIds: readonly number[]): Promise<Map<number, ResultRegistrationRow[]>> {
    const out = new Map<number, ResultRegistrationRow[]>();
    if (personEventIds.length === 0) return out;
    const rows = await this.db
      .table('person_competences')
      .whereIn('person_event_id', [...personEventIds])
      .whereNull('deleted_at')
      .select('id', 'competence_id', 'person_event_id', this.db.raw('(superseded_at is null) as current'))
      .orderBy('id');
    for (const r of rows)
      out.set(r.person_event_id, [...(out.get(r.person_event_id) ?? []), { id: Number(r.id), competence_id: r.competence_id, current: r.current }]);
    return out;
  }

  /** A new current registration (the person's earlier one, if any, superseded as by PUT /api/personcompetences) and its webhook event. */
  async register(i: ResultRegistrationInput): Promise<RegistrationRow> {
    const c = i.competence;
    const row = {
      ...newRegistration(
        {
          person_id: i.person.id,
          competence_id: c.id,
          passed: i.passed,
          date: i.date,
          valid_until: c.valid_months ? addMonths(i.date, c.valid_months) : null,
          registered_by: i.registrar.id,
        },
        { grade: i.grade },
      ),
      person_event_id: i.personEventId,
    };
    const created = await this.tx.get(PersonCompetencesRepository).supersedeWith(row);
    await this.tx.get(OUTBOUND_EVENTS).record('personcompetence.registered', registrationData(created, c, i.person, i.registrar.user_name));
    return created;
  }

  /**
   * Takes back what a result created. The current registration is deleted and the one it
   * superseded (the person's earlier registration of the competence, if any and not deleted)
   * becomes current again: webhook personcompetence.deleted (with `restored_personcompetence_id`).
   * A registration already superseded by a later one (someone registered the competence since) is
   * history that stays; it is only no longer counted as the result's. Returns whether a current one was removed.
   */
  async withdraw(r: ResultRegistrationRow, c: CompetenceRow, person: RegisteredPerson): Promise<boolean> {
    const db = this.db;
    if (!r.current) {
      await db.table('person_competences').where('id', r.id).update({ person_event_id: null });
      return false;
    }
    await db.raw('select pg_advisory_xact_lock(hashtext(?))', [`person_competence:${db.schema}:${person.id}:${c.id}`]);
    await db.table('person_competences').where('id', r.id).update({ deleted_at: db.fn.now(), updated_at: db.fn.now() });
    const previous = await db
      .table('person_competences')
      .where({ person_id: person.id, competence_id: c.id })
      .where('id', '<', r.id)
      .whereNull('deleted_at')
      .whereNotNull('superseded_at')
      .orderBy('id', 'desc')
      .first('id');
    if (previous) await db.table('person_competences').where('id', previous.id).update({ superseded_at: null, updated_at: db.fn.now() });
    await this.tx.get(OUTBOUND_EVENTS).record('personcompetence.deleted', {
      personcompetence_id: r.id,
      competence_id: c.id,
      title: c.title,
      type: c.type,
      person_id: person.id,
      user_name: person.user_name,
      removed: 1,
      restored_personcompetence_id: previous ? Number(previous.id) : null,
    });
    return true;
  }
}
