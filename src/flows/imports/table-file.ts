import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import ExcelJS from 'exceljs';
import { ApiError } from '../../platform/errors/api-error';
import type { FileFormat } from '../../tenancy';

/** One line of a table: its number as a spreadsheet shows it (the header is 1) and its cells as text. */
export interface TableLine {
  line: number;
  values: string[];
}

/** The largest cell or CSV record read; beyond it the file is refused (420). */
const MAX_RECORD_BYTES = 256 * 1024;

/** XLSX is a zip (PK\x03\x04); anything else is read as CSV. The name's ending decides first. */
export function formatOf(fileName: string, data: Buffer): FileFormat {
  if (/\.xlsx$/i.test(fileName)) return 'xlsx';
  if (/\.csv$/i.test(fileName) || /\.txt$/i.test(fileName)) return 'csv';
  return data.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04])) ? 'xlsx' : 'csv';
}

/**
 * Every non-empty line of the file, the header first. Cells are text: a formula is its text (`=A1+1`,
 * never its value), a leading apostrophe that escapes one (`'=A1`, `'+4790000012`, as the templates
 * write them) is dropped. XLSX: the first worksheet, dates as YYYY-MM-DD. CSV: UTF-8 (with or without
 * BOM; a file that is no UTF-8 is read as Windows-1252, as Excel writes "CSV"), separated by the comma,
 * semicolon or tab the header line uses.
 */
export async function* tableLines(data: Buffer, format: FileFormat): AsyncGenerator<TableLine> {
  const lines = format === 'xlsx' ? xlsxLines(data) : csvLines(data);
  for await (const l of lines) {
    const values = l.values.map(unescapeFormula);
    if (values.some((v) => v.trim() !== '')) yield { line: l.line, values };
  }
}

/** `'=...`, `'+...`, `'-...`, `'@...`: the apostrophe keeps a spreadsheet from reading a formula; the value is the rest. */
function unescapeFormula(v: string): string {
  return /^'[=+\-@\t\r]/.test(v) ? v.slice(1) : v;
}

/** A cell for a CSV a spreadsheet will open: what could start a formula gets the apostrophe tableLines drops again. */
export function csvCell(v: string): string {
  const safe = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return /[",;\r\n\t]/.test(safe) || safe !== safe.trim() ? `"${safe.replace(/"/g, '""')}"` : safe;
}

function decode(data: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(data);
  } catch {
    return new TextDecoder('windows-1252').decode(data);
  }
}

/** The separator the header line uses most: comma, semicolon or tab. */
function separatorOf(text: string): string {
  const end = text.search(/\r|\n/);
  const header = end < 0 ? text : text.slice(0, end);
  const counts = [',', ';', '\t'].map((d) => [d, header.split(d).length] as const);
  return counts.reduce((best, c) => (c[1] > best[1] ? c : best))[0];
}

async function* csvLines(data: Buffer): AsyncGenerator<TableLine> {
  const text = decode(data);
  const parser = Readable.from([text]).pipe(
    parse({ delimiter: separatorOf(text), bom: true, relax_column_count: true, skip_empty_lines: false, max_record_size: MAX_RECORD_BYTES }),
  );
  let line = 0;
  try {
    for await (const record of parser as AsyncIterable<string[]>) yield { line: ++line, values: record };
  } catch (err) {
    throw ApiError.malformed('file', `CSV record ${line + 1} cannot be read: ${(err as Error).message}`);
  }
}

async function* xlsxLines(data: Buffer): AsyncGenerator<TableLine> {
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(Readable.from([data]), {
    worksheets: 'emit',
    sharedStrings: 'cache',
    hyperlinks: 'ignore',
    // the number formats tell a date cell from a number
    styles: 'cache',
    entries: 'ignore',
  });
  try {
    for await (const sheet of reader) {
      for await (const row of sheet) {
        const cells = (row.values as unknown[]).slice(1);
        yield { line: row.number, values: Array.from(cells, cellText) };
      }
      return; // the first worksheet only
    }
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw ApiError.malformed('file', `the XLSX file cannot be read: ${(err as Error).message}`);
  }
}

/** A cell's value as the text the API would be sent. */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  if (typeof v === 'object') {
    const o = v as Record<string, any>;
    // a formula is stored as its text, never evaluated (nor its cached result taken)
    if (typeof o.formula === 'string') return `=${o.formula}`;
    if (typeof o.sharedFormula === 'string') return `=${o.sharedFormula}`;
    if (Array.isArray(o.richText)) return o.richText.map((r: { text?: string }) => r.text ?? '').join('');
    if (typeof o.text === 'string') return o.text;
    if (typeof o.error === 'string') return o.error;
  }
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- any other kind of cell value is kept as its text, whatever that is
  return String(v);
}
