import type { Writable } from 'node:stream';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import ExcelJS from 'exceljs';
import type { MatrixColumn } from '../../catalogue';
import type { MatrixRow } from './competence-reports';
import type { ComplianceRow } from './compliance-summary';

/*
 * The reports as files (issue 38): CSV (UTF-8 with BOM, comma-separated, csv-stringify) and XLSX
 * (exceljs' streaming WorkbookWriter: rows are committed as they are written, shared strings off, so
 * memory stays bounded by a batch). Text a spreadsheet could take for a formula is neutralised.
 */

export type ReportFormat = 'json' | 'csv' | 'xlsx';
export const FILE_TYPES = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
} as const;

/** Text starting with = + - @ tab or CR gets a leading apostrophe (OWASP CSV injection), in CSV and XLSX alike. */
export function neutralise(v: string | null | undefined): string {
  if (v == null) return '';
  return /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
}

const FIXED = ['user_name', 'firstname', 'lastname', 'organisation_id', 'organisation_name', 'compliant'];
/** A competence's column header: its title and id (titles need not be unique). */
export const columnHeader = (c: MatrixColumn) => `${neutralise(c.title)} [${c.competence_id}]`;

type Cell = MatrixRow['competences'][number];

/** A matrix cell as CSV text: the status, and the last valid day when a registration has one ("expiring 2026-12-31"); '' when not required. */
export function cellText(c: Cell | undefined): string {
  if (!c) return '';
  return c.status !== 'missing' && c.valid_until ? `${c.status} ${c.valid_until}` : c.status;
}

/** Waits for the reader to catch up between batches, so a slow client holds no more than a batch in memory. */
async function drained(out: Writable): Promise<void> {
  if (out.writableNeedDrain) await once(out, 'drain');
}

export async function matrixCsv(out: Writable, columns: MatrixColumn[], batches: AsyncIterable<MatrixRow[]>): Promise<void> {
  const csv = stringify({ bom: true });
  const done = pipeline(csv, out);
  const write = async (record: unknown[]) => {
    if (!csv.write(record)) await once(csv, 'drain');
  };
  await write([...FIXED, ...columns.map(columnHeader)]);
  for await (const batch of batches) {
    for (const r of batch) {
      const byId = new Map(r.competences.map((c) => [c.competence_id, c]));
      await write([
        neutralise(r.user_name),
        neutralise(r.firstname),
        neutralise(r.lastname),
        r.organisation_id ?? '',
        neutralise(r.organisation_name),
        String(r.compliant),
        ...columns.map((c) => cellText(byId.get(c.competence_id))),
      ]);
    }
  }
  csv.end();
  await done;
}

/** Status colours (Excel's own good/neutral/bad fills). */
export const STATUS_FILL: Record<Cell['status'], string> = { passed: 'FFC6EFCE', expiring: 'FFFFEB9C', expired: 'FFF8CBAD', missing: 'FFFFC7CE' };
const fill = (argb: string): ExcelJS.Fill => ({ type: 'pattern', pattern: 'solid', fgColor: { argb } });
/** A calendar day as the date a spreadsheet shows (midnight UTC: exceljs writes the serial of that day). */
const asDate = (day: string) => new Date(`${day}T00:00:00Z`);

function workbook(out: Writable) {
  return new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
}

function header(sheet: ExcelJS.Worksheet, names: string[]) {
  const row = sheet.addRow(names);
  row.font = { bold: true };
  row.commit();
}

/**
 * One row per person, one column per competence. A cell with a last valid day holds that day as a
 * real date, shown with its status ("expiring 2026-12-31"); one without holds the status as text.
 * Fill colours by status; the header row and the names are frozen.
 */
export async function matrixXlsx(out: Writable, columns: MatrixColumn[], batches: AsyncIterable<MatrixRow[]>): Promise<void> {
  const book = workbook(out);
  const sheet = book.addWorksheet('Competence matrix', { views: [{ state: 'frozen', xSplit: 3, ySplit: 1 }] });
  sheet.columns = [...FIXED, ...columns.map(columnHeader)].map((_, i) => ({ width: i < FIXED.length ? 18 : 22 }));
  header(sheet, [...FIXED, ...columns.map(columnHeader)]);
  for await (const batch of batches) {
    for (const r of batch) {
      const byId = new Map(r.competences.map((c) => [c.competence_id, c]));
      const row = sheet.addRow([
        neutralise(r.user_name),
        neutralise(r.firstname),
        neutralise(r.lastname),
        r.organisation_id,
        neutralise(r.organisation_name),
        r.compliant,
      ]);
      columns.forEach((col, i) => {
        const c = byId.get(col.competence_id);
        if (!c) return;
        const cell = row.getCell(FIXED.length + 1 + i);
        if (c.status !== 'missing' && c.valid_until) {
          cell.value = asDate(c.valid_until);
          cell.numFmt = `"${c.status} "yyyy-mm-dd`;
        } else cell.value = c.status;
        cell.fill = fill(STATUS_FILL[c.status]);
      });
      row.commit();
    }
    await drained(out);
  }
  sheet.commit();
  await book.commit();
}

const COMPLIANCE = [
  'organisation_id',
  'organisation_name',
  'parent_id',
  'date',
  'competence_id',
  'competence',
  'persons',
  'compliant_persons',
  'required',
  'passed',
  'expiring',
  'expired',
  'missing',
  'percent_compliant',
];
type Counts = Pick<ComplianceRow, 'required' | 'passed' | 'expiring' | 'expired' | 'missing' | 'percent_compliant'>;
const countsOf = (c: Counts) => [c.required, c.passed, c.expiring, c.expired, c.missing, c.percent_compliant];

/** An organisation's total line (no competence), then one line per required competence (no person counts). */
function complianceLines(r: ComplianceRow): { values: unknown[]; total: boolean }[] {
  const head = [r.organisation_id, neutralise(r.organisation_name), r.parent_id ?? ''];
  return [
    { values: [...head, r.date, '', '', r.persons, r.compliant_persons, ...countsOf(r)], total: true },
    ...r.by_competence.map((c) => ({ values: [...head, r.date, c.competence_id, neutralise(c.title), '', '', ...countsOf(c)], total: false })),
  ];
}

export async function complianceCsv(out: Writable, rows: ComplianceRow[]): Promise<void> {
  const csv = stringify({ bom: true });
  const done = pipeline(csv, out);
  csv.write(COMPLIANCE);
  for (const r of rows) for (const line of complianceLines(r)) if (!csv.write(line.values)) await once(csv, 'drain');
  csv.end();
  await done;
}

export async function complianceXlsx(out: Writable, rows: ComplianceRow[]): Promise<void> {
  const book = workbook(out);
  const sheet = book.addWorksheet('Compliance', { views: [{ state: 'frozen', xSplit: 2, ySplit: 1 }] });
  sheet.columns = COMPLIANCE.map((name) => ({ width: Math.max(12, name.length + 2) }));
  header(sheet, COMPLIANCE);
  const statusColumn = new Map(['passed', 'expiring', 'expired', 'missing'].map((s) => [COMPLIANCE.indexOf(s) + 1, STATUS_FILL[s as Cell['status']]]));
  for (const r of rows) {
    for (const line of complianceLines(r)) {
      const values = line.values.map((v, i) => (COMPLIANCE[i] === 'date' ? asDate(v as string) : v === '' ? null : v));
      const row = sheet.addRow(values);
      row.getCell(COMPLIANCE.indexOf('date') + 1).numFmt = 'yyyy-mm-dd';
      for (const [col, argb] of statusColumn) if (Number(values[col - 1]) > 0) row.getCell(col).fill = fill(argb);
      if (line.total) row.font = { bold: true };
      row.commit();
    }
  }
  sheet.commit();
  await book.commit();
}
