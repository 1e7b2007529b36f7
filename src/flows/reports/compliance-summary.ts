import { inject, injectable } from 'tsyringe';
import type { Principal } from '../../platform/auth/principal';
import { ReportPersons, type ReportOrganisation } from '../../people';
import { CompetenceMatrix, type CellStatus } from '../../catalogue';
import { CompetenceMatrixFlow, REPORT_BATCH, type MatrixScope } from './competence-reports';

export interface ComplianceParams {
  organisation_id: number;
  recursive?: boolean;
  date?: string;
  expiring_within_days?: number;
}

export interface StatusCounts {
  required: number;
  passed: number;
  expiring: number;
  expired: number;
  missing: number;
  percent_compliant: number;
}

export interface ComplianceRow extends StatusCounts {
  organisation_id: number;
  organisation_name: string;
  parent_id: number | null;
  date: string;
  persons: number;
  /** Persons holding every mandatory competence (passed or expiring). */
  compliant_persons: number;
  by_competence: (StatusCounts & { competence_id: number; title: string })[];
}

interface Tally {
  persons: number;
  compliant: number;
  total: Record<CellStatus, number>;
  byCompetence: Map<number, { title: string; counts: Record<CellStatus, number> }>;
}

const zero = (): Record<CellStatus, number> => ({ passed: 0, expiring: 0, expired: 0, missing: 0 });
const emptyTally = (): Tally => ({ persons: 0, compliant: 0, total: zero(), byCompetence: new Map() });

/** Held share of the required pairs, rounded down; 100 when nothing is required (as GET /api/competencelevel). */
function counts(c: Record<CellStatus, number>): StatusCounts {
  const required = c.passed + c.expiring + c.expired + c.missing;
  const held = c.passed + c.expiring;
  return { required, ...c, percent_compliant: required === 0 ? 100 : Math.floor((100 * held) / required) };
}

/**
 * GET /api/reports/compliance (issue 38): one row per organisation, itself and (recursive, the default)
 * every unit below it, each counting the mandatory cells of the competence matrix of that organisation
 * with the same `recursive`: so a row's counts are the sums of the matrix over the same parameters.
 * Persons are evaluated a batch at a time (CompetenceMatrix), counted where they sit, then added up the tree.
 */
@injectable()
export class ComplianceSummaryFlow {
  constructor(
    @inject(CompetenceMatrixFlow) private readonly matrixFlow: CompetenceMatrixFlow,
    @inject(CompetenceMatrix) private readonly matrix: CompetenceMatrix,
    @inject(ReportPersons) private readonly persons: ReportPersons,
  ) {}

  async summary(user: Principal, params: ComplianceParams): Promise<ComplianceRow[]> {
    const recursive = params.recursive ?? true;
    const scope: MatrixScope = await this.matrixFlow.scope(user, { ...params, recursive, include_optional: false });
    const organisations = await this.persons.subtree(params.organisation_id, recursive);
    const direct = new Map<number, Tally>(organisations.map((o) => [o.id, emptyTally()]));
    const people = await this.persons.all(scope.filter);
    for (let i = 0; i < people.length; i += REPORT_BATCH) {
      const batch = people.slice(i, i + REPORT_BATCH);
      const cells = await this.matrix.cells(
        batch.map((p) => p.id),
        scope.query,
      );
      for (const p of batch) {
        const tally = direct.get(p.organisation_id ?? -1);
        if (!tally) continue;
        const mine = cells.get(p.id) ?? [];
        tally.persons += 1;
        if (mine.every((c) => c.status === 'passed' || c.status === 'expiring')) tally.compliant += 1;
        for (const c of mine) {
          tally.total[c.status] += 1;
          let per = tally.byCompetence.get(c.competence.id);
          if (!per) tally.byCompetence.set(c.competence.id, (per = { title: c.competence.title, counts: zero() }));
          per.counts[c.status] += 1;
        }
      }
    }
    const totals = rollUp(organisations, direct, recursive);
    return organisations.map((o) => present(o, totals.get(o.id)!, scope.query.day));
  }
}

/** Each organisation's tally plus those of every organisation below it (when recursive). */
function rollUp(organisations: ReportOrganisation[], direct: Map<number, Tally>, recursive: boolean): Map<number, Tally> {
  const totals = new Map<number, Tally>(organisations.map((o) => [o.id, emptyTally()]));
  const parent = new Map(organisations.map((o) => [o.id, o.parent_id]));
  for (const [id, tally] of direct) {
    for (let at: number | null | undefined = id; at != null && totals.has(at); at = recursive ? parent.get(at) : null) {
      add(totals.get(at)!, tally);
    }
  }
  return totals;
}

function add(into: Tally, from: Tally): void {
  into.persons += from.persons;
  into.compliant += from.compliant;
  for (const s of Object.keys(into.total) as CellStatus[]) into.total[s] += from.total[s];
  for (const [id, c] of from.byCompetence) {
    let per = into.byCompetence.get(id);
    if (!per) into.byCompetence.set(id, (per = { title: c.title, counts: zero() }));
    for (const s of Object.keys(per.counts) as CellStatus[]) per.counts[s] += c.counts[s];
  }
}

function present(o: ReportOrganisation, t: Tally, date: string): ComplianceRow {
  return {
    organisation_id: o.id,
    organisation_name: o.name,
    parent_id: o.parent_id,
    date,
    persons: t.persons,
    compliant_persons: t.compliant,
    ...counts(t.total),
    by_competence: [...t.byCompetence]
      .map(([id, c]) => ({ competence_id: id, title: c.title, ...counts(c.counts) }))
      .sort((a, b) => a.title.localeCompare(b.title) || a.competence_id - b.competence_id),
  };
}
