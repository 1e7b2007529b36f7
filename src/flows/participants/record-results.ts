import { inject, injectable } from 'tsyringe';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import { AuditTrail } from '../../platform/audit/audit-trail';
import { OUTBOUND_EVENTS } from '../../platform/outbound/outbound-events';
import { TenantClock } from '../../platform/time/tenant-clock';
import { UnitOfWork, type Transaction } from '../../platform/tenant-scope/unit-of-work';
import { EventResults, EventsRepository, type EventResultRow, type EventResultValues, type EventRow } from '../../courses';
import { CompetencesRepository, passMarkOf, ResultRegistrations } from '../../catalogue';
import { PersonDirectory } from '../../people';
import { ParticipantsFlow } from './participants';
import type { ResultInput } from './result-input';
import { syncRegistrations, type CourseFacts } from './result-registrations-sync';

/** Names a row of the request in errors: `user_name` for one result, `results[2].user_name` for many. */
export type RowName = (index: number, field: string) => string;

export interface RecordOutcome {
  message: string;
  items: Record<string, unknown>[];
}

const FIELDS = ['met', 'passed', 'grade', 'comments'] as const;

/**
 * PUT /api/participants/[event_id] and /[event_id]/[user_name]: results and attendance (issue 36, item 1). One
 * transaction for every row (all or nothing): the participants' sign-ons to the course event
 * locked (courses' EventResults), each changed result written with its audit entry
 * (participant.result_recorded) and webhook event (personevent.result_recorded), and the
 * registrations the sign-on's results call for brought in line (catalogue's ResultRegistrations,
 * each with its personcompetence.registered / .deleted event). A result recorded again with the
 * same values changes nothing. See README.md.
 */
@injectable()
export class RecordResultsFlow {
  constructor(
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TenantClock) private readonly clock: TenantClock,
    @inject(PersonDirectory) private readonly persons: PersonDirectory,
    @inject(EventsRepository) private readonly events: EventsRepository,
    @inject(ParticipantsFlow) private readonly participants: ParticipantsFlow,
  ) {}

  async record(user: Principal, event: EventRow, rows: ResultInput[], rowName: RowName): Promise<RecordOutcome> {
    const course = await this.recordable(event);
    const ids = await this.persons.idsByUserName(rows.map((r) => r.user_name));
    rows.forEach((r, i) => {
      if (!ids.has(r.user_name))
        throw new ApiError(404, `${rowName(i, 'user_name')}: person "${r.user_name}" not found`, { parameter: rowName(i, 'user_name') });
    });
    const personIds = rows.map((r) => ids.get(r.user_name)!);
    const counts = await this.uow.run(async (tx) => {
      tx.get(OUTBOUND_EVENTS).expect?.('personevent.result_recorded');
      const signOns = await tx.get(EventResults).signOnsForUpdate(course.id, personIds);
      rows.forEach((r, i) => {
        const s = signOns.get(personIds[i]);
        const param = { parameter: rowName(i, 'user_name'), user_name: r.user_name };
        if (!s) throw new ApiError(409, `${r.user_name} is not signed on to event ${course.id}: results are recorded for persons signed on`, param);
        if (s.status !== 'signed_on')
          throw new ApiError(
            409,
            `${r.user_name} is on the wait list of event ${course.id}: results are recorded for persons signed on, not on the wait list`,
            param,
          );
      });
      const facts = await this.facts(tx, course);
      const competence = facts.competences.get(event.competence_id)!;
      const signOnIds = personIds.map((id) => signOns.get(id)!.id);
      const results = await tx.get(EventResults).ofSignOns(signOnIds);
      const linked = await tx.get(ResultRegistrations).linked(signOnIds);
      await this.loadCompetences(
        tx,
        facts,
        [...linked.values()].flat().map((l) => l.competence_id),
      );
      const registrar = { id: user.personId, user_name: user.userName };
      let changed = 0,
        registered = 0,
        removed = 0;
      for (const [i, r] of rows.entries()) {
        const signOnId = signOnIds[i];
        const own = results.get(signOnId) ?? [];
        const before = own.find((x) => x.event_id === event.id);
        const after = merged(before, r, passMarkOf(competence));
        if (before && FIELDS.every((k) => before[k] === after[k]) && before.reached === after.reached) continue;
        changed++;
        await tx.get(EventResults).record(signOnId, event.id, event.id === course.id, after, user.personId);
        const now = { ...after, person_event_id: signOnId, event_id: event.id, recorded_by: user.personId, recorded_at: this.clock.now() };
        const person = { id: personIds[i], user_name: r.user_name };
        const sync = await syncRegistrations(
          tx,
          facts,
          { id: signOnId, person },
          [...own.filter((x) => x.event_id !== event.id), now],
          linked.get(signOnId) ?? [],
          registrar,
        );
        registered += sync.registered.length;
        removed += sync.removed.length;
        const changes = FIELDS.filter((k) => before?.[k] !== after[k]);
        await tx.get(AuditTrail).record({
          type: 'participant.result_recorded',
          actor: user.userName,
          subject: r.user_name,
          // the log hides keys that look like secrets ("pass..."): the result is `score` here
          details: {
            event_id: event.id,
            person_event_id: signOnId,
            fields: changes,
            met: after.met,
            score: after.passed,
            mark_reached: after.reached,
            grade: after.grade,
            was: before ? auditOf(before) : null,
            registered: sync.registered,
            removed: sync.removed,
          },
        });
        await tx.get(OUTBOUND_EVENTS).record('personevent.result_recorded', {
          person_event_id: signOnId,
          event_id: event.id,
          event_title: event.title,
          course_event_id: course.id,
          competence_id: event.competence_id,
          person_id: person.id,
          user_name: person.user_name,
          ...pick(after),
          pass_mark: passMarkOf(competence),
          pass_reached: after.reached,
          recorded_by: user.userName,
          registered_competence_ids: sync.registered,
          removed_competence_ids: sync.removed,
        });
      }
      return { changed, registered, removed };
    });
    const unchanged = rows.length - counts.changed;
    const message =
      `${counts.changed} result(s) recorded` +
      (unchanged ? `, ${unchanged} unchanged` : '') +
      (counts.registered || counts.removed ? `; ${counts.registered} registration(s) made, ${counts.removed} removed` : '');
    return { message, items: await this.participants.some(event, personIds) };
  }

  /** The course event the results hang on (the event itself, or a module event's parent); 409 before the start or when cancelled. */
  private async recordable(event: EventRow): Promise<EventRow> {
    if (event.cancelled) throw new ApiError(409, `event ${event.id} is cancelled: no results are recorded for it`);
    if (this.clock.now() < event.starts_at) {
      throw new ApiError(409, `event ${event.id} starts ${event.starts_at.toISOString()}: results are recorded from the event's start on`);
    }
    if (event.parent_id === null) return event;
    const course = await this.events.find(event.parent_id);
    if (!course) throw ApiError.notFound(`event ${event.parent_id}`);
    if (course.cancelled) throw new ApiError(409, `event ${event.id} is a module of cancelled event ${course.id}: no results are recorded for it`);
    return course;
  }

  private async facts(tx: Transaction, course: EventRow): Promise<CourseFacts> {
    const modules = (await tx.get(EventsRepository).children(tx.get(EventsRepository).base(), [course.id])).filter((m) => !m.cancelled);
    const facts: CourseFacts = { course, modules, competences: new Map(), dayOf: (d) => this.clock.dayOf(d) };
    await this.loadCompetences(tx, facts, [course.competence_id, ...modules.map((m) => m.competence_id)]);
    return facts;
  }

  private async loadCompetences(tx: Transaction, facts: CourseFacts, ids: number[]): Promise<void> {
    const missing = [...new Set(ids)].filter((id) => !facts.competences.has(id));
    if (!missing.length) return;
    for (const c of await tx.get(CompetencesRepository).byIds(missing)) facts.competences.set(c.id, c);
  }
}

/** The result after the change: the fields given replace the recorded ones, the rest stay. */
function merged(before: EventResultRow | undefined, r: ResultInput, passMark: number): EventResultValues {
  const pickOr = <K extends keyof ResultInput & keyof EventResultValues>(k: K) => (r[k] !== undefined ? (r[k] as EventResultValues[K]) : (before?.[k] ?? null));
  const passed = pickOr('passed');
  return { met: pickOr('met'), passed, reached: passed === null ? null : passed >= passMark, grade: pickOr('grade'), comments: pickOr('comments') };
}

const pick = (v: EventResultValues) => ({ met: v.met, passed: v.passed, grade: v.grade, comments: v.comments });
const auditOf = (v: EventResultValues) => ({ met: v.met, score: v.passed, grade: v.grade, comments: v.comments });
