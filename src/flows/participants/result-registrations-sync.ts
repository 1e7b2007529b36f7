import type { Transaction } from '../../platform/tenant-scope/unit-of-work';
import { ResultRegistrations, type ResultRegistrationRow, type CompetenceRow } from '../../catalogue';
import type { EventResultRow, EventRow } from '../../courses';

/** What the registrations of one sign-on are made of: the course event, its module events and their competences. */
export interface CourseFacts {
  course: EventRow;
  /** module events that are not cancelled */
  modules: EventRow[];
  competences: Map<number, CompetenceRow>;
  /** the tenant's calendar day of an instant */
  dayOf(instant: Date): string;
}

interface Wanted {
  date: string;
  passed: number;
  grade: number | null;
}

/**
 * The registrations a sign-on's results call for. Once the course event's result reached its pass
 * mark: the course event's competence (date: the course event's end day) and each module event's
 * competence (date: the module event's end day) unless that module event has a result below the
 * module's pass mark (a module with no result, or with attendance only, is passed with the course).
 * Nothing while the course result is below the mark or not recorded.
 */
export function wantedRegistrations(f: CourseFacts, results: readonly EventResultRow[]): Map<number, Wanted> {
  const wanted = new Map<number, Wanted>();
  const byEvent = new Map(results.map((r) => [r.event_id, r]));
  const course = byEvent.get(f.course.id);
  if (!course || course.reached !== true || course.passed === null) return wanted;
  wanted.set(f.course.competence_id, { date: f.dayOf(f.course.ends_at), passed: course.passed, grade: course.grade });
  for (const m of f.modules) {
    const r = byEvent.get(m.id);
    if (r?.reached === false) continue;
    const date = f.dayOf(m.ends_at);
    const before = wanted.get(m.competence_id);
    if (before && before.date >= date) continue;
    wanted.set(m.competence_id, { date, passed: r?.passed ?? course.passed, grade: r?.grade ?? null });
  }
  return wanted;
}

export interface SyncOutcome {
  registered: number[];
  removed: number[];
}

/**
 * Brings the registrations the sign-on's results created (person_competences linked to it) in line
 * with what its results call for: the missing ones registered, those no longer called for taken
 * back (ResultRegistrations.withdraw: the person's earlier registration, if any, is current again).
 * A registration the results created once and someone has superseded since counts as made.
 * Competence ids registered and removed.
 */
export async function syncRegistrations(
  tx: Transaction,
  f: CourseFacts,
  signOn: { id: number; person: { id: number; user_name: string } },
  results: readonly EventResultRow[],
  linked: readonly ResultRegistrationRow[],
  registrar: { id: number; user_name: string },
): Promise<SyncOutcome> {
  const regs = tx.get(ResultRegistrations);
  const wanted = wantedRegistrations(f, results);
  const out: SyncOutcome = { registered: [], removed: [] };
  for (const row of linked) {
    if (wanted.has(row.competence_id)) {
      wanted.delete(row.competence_id);
      continue;
    }
    if (await regs.withdraw(row, f.competences.get(row.competence_id)!, signOn.person)) out.removed.push(row.competence_id);
  }
  for (const [competenceId, w] of wanted) {
    const competence = f.competences.get(competenceId)!;
    await regs.register({ person: signOn.person, competence, personEventId: signOn.id, date: w.date, passed: w.passed, grade: w.grade, registrar });
    out.registered.push(competenceId);
  }
  return out;
}
