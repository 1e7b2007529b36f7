import { z } from 'zod';
import type { Logger } from 'pino';
import type { Principal } from '../../platform/auth/principal';
import type { Transaction } from '../../platform/tenant-scope/unit-of-work';
import { ApiError } from '../../platform/errors/api-error';
import { zodErrorToApiError } from '../../platform/http/zod-to-api-error';
import { p } from '../../platform/http/param-types';
import type { OrganisationsRepository, PersonRow, PersonsRepository } from '../../people';
import type { RowProblem } from '../../tenancy';

/** A data line of the file: its row number and its cells by column. */
export interface ImportLine {
  line: number;
  cells: Map<string, string>;
}

export type Outcome = 'created' | 'updated' | 'unchanged';

/** What checking a line found: its problems, or what writing it will do (and the write, unless unchanged). */
export type Checked = { line: number; problems: RowProblem[] } | { line: number; outcome: Outcome; write?: (tx: Transaction) => Promise<void> };

/** Who imports (a superuser) and where to log. */
export interface ImportCaller {
  user: Principal;
  log: Logger;
}

/**
 * The rows of one import type. `check` reads (a few statements per batch, never per line) and
 * decides each line with the API's own rules and texts; it keeps what later lines need (keys
 * already seen, organisations created by earlier lines). The writes run in the batch's transaction.
 */
export interface ImportRows {
  start(caller: ImportCaller, header: readonly string[]): void;
  check(lines: readonly ImportLine[]): Promise<Checked[]>;
}

/** A row problem that stops checking the row. */
export class RowFailure extends Error {
  constructor(readonly problems: RowProblem[]) {
    super(problems[0]?.message ?? 'row failed');
  }
}

/** The column an API parameter is: person_data[email] -> email, role_ids[2] -> role_ids. */
export function columnOf(parameter: unknown): string | null {
  if (typeof parameter !== 'string' || parameter === '') return null;
  const m = /^([a-z_]+)(?:\[([a-z_]+)\])?/i.exec(parameter);
  if (!m) return null;
  return m[1].endsWith('_data') && m[2] ? m[2] : m[1];
}

/** The problem an error of the API's rules is; anything else is no row's problem and is thrown on. */
export function problemOf(line: number, err: unknown, column?: string | null): RowProblem {
  if (err instanceof RowFailure) return err.problems[0];
  if (!(err instanceof ApiError) || err.status >= 500) throw err;
  return { row: line, column: column === undefined ? columnOf(err.extra.parameter) : column, errorcode: err.errorcode, message: err.message };
}

/** Parses `input` as the API does; each issue is a problem with the API's 419/420 text. */
export function parseOrFail<S extends z.ZodType>(
  line: number,
  schema: S,
  input: Record<string, unknown>,
  column?: (parameter: string) => string | null,
): z.infer<S> {
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  const problems = r.error.issues.map((issue) => {
    const err = zodErrorToApiError(new z.ZodError([issue]), input);
    const parameter = typeof err.extra.parameter === 'string' ? err.extra.parameter : '';
    return { row: line, column: column ? column(parameter) : columnOf(parameter), errorcode: err.errorcode, message: err.message };
  });
  throw new RowFailure(problems);
}

export function fail(line: number, column: string | null, err: ApiError): never {
  throw new RowFailure([{ row: line, column, errorcode: err.errorcode, message: err.message }]);
}

/** A non-empty cell, trimmed; undefined when the column is absent or the cell empty. */
export function cell(l: ImportLine, column: string): string | undefined {
  const v = l.cells.get(column)?.trim();
  return v ? v : undefined;
}

/** Lines of a batch checked one by one: a RowFailure or an ApiError is the line's problem, anything else fails the import. */
export async function eachLine(lines: readonly ImportLine[], check: (l: ImportLine) => Checked | Promise<Checked>): Promise<Checked[]> {
  const out: Checked[] = [];
  for (const l of lines) {
    try {
      out.push(await check(l));
    } catch (err) {
      if (err instanceof RowFailure) out.push({ line: l.line, problems: err.problems });
      else out.push({ line: l.line, problems: [problemOf(l.line, err)] });
    }
  }
  return out;
}

/**
 * Persons named by user_name or extern_person_id, read for a whole batch in two statements.
 * A line naming both is matched by user_name first.
 */
export class PersonsOfBatch {
  private byName = new Map<string, PersonRow>();
  private byExtern = new Map<string, PersonRow[]>();

  static async read(persons: PersonsRepository, lines: readonly ImportLine[]): Promise<PersonsOfBatch> {
    const batch = new PersonsOfBatch();
    const names = lines.map((l) => cell(l, 'user_name')).filter((v): v is string => v !== undefined);
    const externs = lines.map((l) => cell(l, 'extern_person_id')).filter((v): v is string => v !== undefined);
    const [a, b] = await Promise.all([persons.findMany('user_name', names), persons.findMany('extern_person_id', externs)]);
    for (const p of a) batch.byName.set(p.user_name, p);
    for (const p of b) batch.byExtern.set(p.extern_person_id!, [...(batch.byExtern.get(p.extern_person_id!) ?? []), p]);
    return batch;
  }

  /** The person the line names, if any; an external id naming several is a 409. */
  find(l: ImportLine): PersonRow | undefined {
    const name = cell(l, 'user_name');
    const byName = name === undefined ? undefined : this.byName.get(name);
    if (byName) return byName;
    const extern = cell(l, 'extern_person_id');
    if (extern === undefined) return undefined;
    const found = this.byExtern.get(extern) ?? [];
    if (found.length > 1)
      fail(l.line, 'extern_person_id', new ApiError(409, `extern_person_id "${extern}" names ${found.length} persons; name the person by user_name`));
    return found[0];
  }

  /** The person the line names; none is a 404 (or a 419 when it names nobody at all). */
  require(l: ImportLine): PersonRow {
    const name = cell(l, 'user_name');
    const extern = cell(l, 'extern_person_id');
    if (name === undefined && extern === undefined) fail(l.line, 'user_name', ApiError.missing('user_name'));
    const p = this.find(l);
    if (!p)
      fail(
        l.line,
        name !== undefined ? 'user_name' : 'extern_person_id',
        ApiError.notFound(name !== undefined ? `person "${name}"` : `person with extern_person_id "${extern}"`),
      );
    return p;
  }
}

/** Keys already met in the file: the same key twice is a 409 naming the earlier row. */
export class SeenKeys {
  private readonly seen = new Map<string, number>();

  claim(line: number, column: string, key: string, what: string): void {
    const earlier = this.seen.get(key);
    if (earlier !== undefined) fail(line, column, new ApiError(409, `${what} is already in row ${earlier} of this file`));
    this.seen.set(key, line);
  }
}

/** Organisations named by organisation_id or extern_organisation_id, read for a whole batch in two statements. */
export class OrganisationsOfBatch {
  private unknownIds = new Set<number>();
  private byExtern = new Map<string, number[]>();

  static async read(
    organisations: OrganisationsRepository,
    lines: readonly ImportLine[],
    idColumn = 'organisation_id',
    externColumn = 'extern_organisation_id',
  ): Promise<OrganisationsOfBatch> {
    const batch = new OrganisationsOfBatch();
    const ids = lines.map((l) => Number(cell(l, idColumn))).filter((n) => Number.isInteger(n) && n > 0 && n <= 2147483647);
    const externs = lines.map((l) => cell(l, externColumn)).filter((v): v is string => v !== undefined);
    const [missing, found] = await Promise.all([organisations.missing(ids), organisations.findByExternIds(externs)]);
    batch.unknownIds = new Set(missing);
    for (const o of found) batch.byExtern.set(o.extern_organisation_id!, [...(batch.byExtern.get(o.extern_organisation_id!) ?? []), o.id]);
    return batch;
  }

  /** The organisation the line names by id (checked to exist) or external id; undefined when it names none. */
  resolve(l: ImportLine, idColumn = 'organisation_id', externColumn = 'extern_organisation_id'): number | undefined {
    const raw = cell(l, idColumn);
    if (raw !== undefined) {
      const id = parseOrFail(l.line, z.object({ [idColumn]: p.id() }), { [idColumn]: raw })[idColumn];
      if (this.unknownIds.has(id)) fail(l.line, idColumn, ApiError.notFound(`organisation ${id}`));
      return id;
    }
    const extern = cell(l, externColumn);
    if (extern === undefined) return undefined;
    return this.byExternId(l.line, externColumn, extern);
  }

  byExternId(line: number, column: string, extern: string): number {
    const ids = this.byExtern.get(extern) ?? [];
    if (ids.length === 0) fail(line, column, ApiError.notFound(`organisation with extern_organisation_id "${extern}"`));
    if (ids.length > 1) fail(line, column, new ApiError(409, `extern_organisation_id "${extern}" names ${ids.length} organisations; use organisation_id`));
    return ids[0];
  }

  knows(extern: string): boolean {
    return this.byExtern.has(extern);
  }
}
