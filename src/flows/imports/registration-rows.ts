import { z } from 'zod';
import { inject, injectable } from 'tsyringe';
import { ApiError } from '../../platform/errors/api-error';
import { p } from '../../platform/http/param-types';
import { PersonsRepository } from '../../people';
import { PersonCompetenceRegistration, type CompetenceRow } from '../../catalogue';
import { PersonsOfBatch, SeenKeys, cell, eachLine, fail, parseOrFail, type Checked, type ImportCaller, type ImportLine, type ImportRows } from './import-rows';

/** The columns as PUT /api/personcompetences/[competence_id] takes them (same rules and texts); date is required here. */
const Input = z.object({
  competence_id: p.id(),
  date: p.date(),
  passed: p.int().pipe(z.number().min(0, 'must be 0-100').max(100, 'must be 0-100')).optional(),
  valid_until: p.date().optional(),
  comments: p.string(4000).optional(),
  grade: z
    .union([
      z.number(),
      z
        .string()
        .trim()
        .regex(/^-?\d+(\.\d+)?$/, 'must be a number'),
    ])
    .transform(Number)
    .optional(),
});

const COLUMNS = ['competence_id', 'date', 'passed', 'valid_until', 'comments', 'grade'] as const;

/**
 * Lines of a registrations import: each is built by the catalogue's rules for its competence type
 * (PersonCompetenceRegistration.build, as PUT /api/personcompetences) for a superuser, matched by
 * (person, competence, date) against the live registrations (current and history): the same values
 * are unchanged; otherwise the registration is stored as the API stores it (the previous current one
 * becomes history, personcompetence.registered is written). See IMPORT_COLUMNS.registrations.
 */
@injectable()
export class RegistrationImportRows implements ImportRows {
  private caller!: ImportCaller;
  private readonly seen = new SeenKeys();
  private readonly competences = new Map<number, Promise<CompetenceRow | ApiError>>();

  constructor(
    @inject(PersonsRepository) private readonly persons: PersonsRepository,
    @inject(PersonCompetenceRegistration) private readonly registrations: PersonCompetenceRegistration,
  ) {}

  start(caller: ImportCaller): void {
    this.caller = caller;
  }

  private competence(id: number): Promise<CompetenceRow | ApiError> {
    let c = this.competences.get(id);
    if (!c) {
      c = this.registrations.competence(id).catch((err: unknown) => {
        if (err instanceof ApiError) return err;
        throw err;
      });
      this.competences.set(id, c);
    }
    return c;
  }

  async check(lines: readonly ImportLine[]): Promise<Checked[]> {
    const persons = await PersonsOfBatch.read(this.persons, lines);
    const personIds: number[] = [];
    const competenceIds = new Set<number>();
    for (const l of lines) {
      try {
        const person = persons.find(l);
        if (person) personIds.push(person.id);
      } catch {
        // reported when the line is checked
      }
      const id = Number(cell(l, 'competence_id'));
      if (Number.isInteger(id) && id > 0 && id <= 2147483647) competenceIds.add(id);
    }
    const live = await this.registrations.liveRegistrations(personIds, [...competenceIds]);
    const byKey = new Map<string, typeof live>();
    for (const r of live) byKey.set(`${r.person_id}:${r.competence_id}:${r.date}`, [...(byKey.get(`${r.person_id}:${r.competence_id}:${r.date}`) ?? []), r]);
    const { user } = this.caller;
    const registrar = user.userName;
    return eachLine(lines, async (l) => {
      const person = persons.require(l);
      const raw: Record<string, unknown> = {};
      for (const c of COLUMNS) if (cell(l, c) !== undefined) raw[c] = cell(l, c);
      const input = parseOrFail(l.line, Input, raw);
      const c = await this.competence(input.competence_id);
      if (c instanceof ApiError) fail(l.line, 'competence_id', c);
      const standing = { isSelf: person.id === user.personId, managedByCaller: true, asManager: true };
      const { competence_id: _, ...rest } = input;
      const { row } = buildOrFail(l.line, () => this.registrations.build(user, person, c, standing, rest));
      const key = `${person.id}:${c.id}:${row.date}`;
      this.seen.claim(l.line, 'date', key, `the registration of competence ${c.id} for "${person.user_name}" on ${row.date}`);
      const same = byKey.get(key) ?? [];
      const unchanged = same.some(
        (r) => r.passed === row.passed && r.valid_until === row.valid_until && (r.comments ?? null) === row.comments && numberOrNull(r.grade) === row.grade,
      );
      if (unchanged) return { line: l.line, outcome: 'unchanged' };
      return {
        line: l.line,
        outcome: same.length ? 'updated' : 'created',
        write: async (tx) => {
          await tx.get(PersonCompetenceRegistration).store(row, c, person, registrar);
        },
      };
    });
  }
}

/** The catalogue's rules; a refusal that names no parameter is about the competence (its type). */
function buildOrFail<T>(line: number, build: () => T): T {
  try {
    return build();
  } catch (err) {
    if (err instanceof ApiError && !err.extra.parameter) fail(line, 'competence_id', err);
    throw err;
  }
}

function numberOrNull(v: unknown): number | null {
  return v === null || v === undefined ? null : Number(v);
}
