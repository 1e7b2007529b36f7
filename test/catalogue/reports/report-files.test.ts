import { describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { bytes, useReportsTenant } from './reports-support';

const bed = useReportsTenant();
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const FILL = { passed: 'FFC6EFCE', expiring: 'FFFFEB9C', expired: 'FFF8CBAD', missing: 'FFFFC7CE' } as Record<string, string>;

/** What a spreadsheet-safe text cell holds for a value. */
const safe = (v: string | null) => (v == null ? '' : /^[=+\-@\t\r]/.test(v) ? `'${v}` : v);

async function json(path: string) {
  const r = await bed.admin.get(path);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

async function file(path: string, type: string) {
  const r = await bytes(bed.admin.get(path));
  expect(r.status, r.body.toString()).toBe(200);
  expect(r.headers['content-type']).toContain(type);
  expect(r.headers['content-disposition']).toMatch(/^attachment; filename="[a-z]+-\d{4}-\d{2}-\d{2}\.(csv|xlsx)"$/);
  return r.body as Buffer;
}

describe('the competence matrix as files', () => {
  const query = () => `organisation_id=${bed.org['Acme Industries']}&recursive=1&include_optional=1`;

  it('CSV (UTF-8 with BOM, one column per competence) parsed back equals the JSON; formulas neutralised', async () => {
    const rows = (await json(`/api/reports/competencematrix?${query()}&limit=100`)).competencematrix;
    const data = await file(`/api/reports/competencematrix?${query()}&format=csv`, 'text/csv');
    expect([...data.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const [head, ...lines] = parse(data, { bom: true });
    expect(head.slice(0, 6)).toEqual(['user_name', 'firstname', 'lastname', 'organisation_id', 'organisation_name', 'compliant']);
    const columns = head.slice(6).map((h) => Number(/\[(\d+)\]$/.exec(h)![1]));
    expect(lines).toHaveLength(rows.length);
    lines.forEach((line, i) => {
      const r = rows[i];
      expect(line.slice(0, 6)).toEqual([
        safe(r.user_name),
        safe(r.firstname),
        safe(r.lastname),
        String(r.organisation_id),
        safe(r.organisation_name),
        String(r.compliant),
      ]);
      const cells = columns.map((id) => {
        const c = r.competences.find((x: any) => x.competence_id === id);
        return !c ? '' : c.status !== 'missing' && c.valid_until ? `${c.status} ${c.valid_until}` : c.status;
      });
      expect(line.slice(6)).toEqual(cells);
    });
    const nils = lines.find((l) => l[0] === 'nils')!;
    expect(nils[1]).toBe(`'=HYPERLINK("http://x.example","open")`);
    expect(nils[2]).toBe(`'+Larsen`);
    const audit = (await json('/api/auditlog?type=report.exported')).auditlog;
    expect(audit[0]).toMatchObject({ type: 'report.exported', actor: 'admin', subject: 'competencematrix' });
    expect(audit[0].details).toMatchObject({
      format: 'csv',
      organisation_id: bed.org['Acme Industries'],
      recursive: true,
      include_optional: true,
      date: expect.any(String),
    });
  });

  it('XLSX read back with exceljs has the same cells: header row, frozen panes, dates as dates, status colours', async () => {
    const rows = (await json(`/api/reports/competencematrix?${query()}&limit=100`)).competencematrix;
    const book = new ExcelJS.Workbook();
    await book.xlsx.load((await file(`/api/reports/competencematrix?${query()}&format=xlsx`, XLSX)) as any);
    const sheet = book.worksheets[0];
    expect(sheet.views[0]).toMatchObject({ state: 'frozen', xSplit: 3, ySplit: 1 });
    const head = (sheet.getRow(1).values as unknown[]).slice(1) as string[];
    expect(head.slice(0, 6)).toEqual(['user_name', 'firstname', 'lastname', 'organisation_id', 'organisation_name', 'compliant']);
    expect(sheet.getRow(1).font?.bold).toBe(true);
    const columns = head.slice(6).map((h) => Number(/\[(\d+)\]$/.exec(h)![1]));
    expect(sheet.actualRowCount).toBe(rows.length + 1);
    let dated = 0;
    rows.forEach((r: any, i: number) => {
      const row = sheet.getRow(i + 2);
      expect([1, 2, 3, 4, 5, 6].map((n) => row.getCell(n).value)).toEqual([
        safe(r.user_name),
        safe(r.firstname),
        safe(r.lastname),
        r.organisation_id,
        safe(r.organisation_name),
        r.compliant,
      ]);
      columns.forEach((id, k) => {
        const cell = row.getCell(7 + k);
        const c = r.competences.find((x: any) => x.competence_id === id);
        if (!c) return expect(cell.value ?? null).toBeNull();
        expect((cell.fill as ExcelJS.FillPattern).fgColor?.argb).toBe(FILL[c.status]);
        if (c.status !== 'missing' && c.valid_until) {
          dated += 1;
          expect(cell.value).toBeInstanceOf(Date);
          expect((cell.value as Date).toISOString().slice(0, 10)).toBe(c.valid_until);
          expect(cell.numFmt).toBe(`"${c.status} "yyyy-mm-dd`);
        } else expect(cell.value).toBe(c.status);
      });
    });
    expect(dated).toBeGreaterThan(3);
  });
});

describe('the compliance summary as files', () => {
  it('CSV and XLSX hold the JSON rows: a line per organisation, then one per competence', async () => {
    const path = `/api/reports/compliance?organisation_id=${bed.org['Acme Industries']}`;
    const rows = (await json(path)).compliance;
    const expected = rows
      .flatMap((o: any) => [
        [
          o.organisation_id,
          o.organisation_name,
          o.parent_id ?? '',
          o.date,
          '',
          '',
          o.persons,
          o.compliant_persons,
          o.required,
          o.passed,
          o.expiring,
          o.expired,
          o.missing,
          o.percent_compliant,
        ],
        ...o.by_competence.map((c: any) => [
          o.organisation_id,
          o.organisation_name,
          o.parent_id ?? '',
          o.date,
          c.competence_id,
          c.title,
          '',
          '',
          c.required,
          c.passed,
          c.expiring,
          c.expired,
          c.missing,
          c.percent_compliant,
        ]),
      ])
      .map((line: unknown[]) => line.map(String));
    const [head, ...lines] = parse(await file(`${path}&format=csv`, 'text/csv'), { bom: true });
    expect(head).toContain('percent_compliant');
    expect(lines).toEqual(expected);

    const book = new ExcelJS.Workbook();
    await book.xlsx.load((await file(`${path}&format=xlsx`, XLSX)) as any);
    const sheet = book.worksheets[0];
    expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    const read: string[][] = [];
    sheet.eachRow((row, n) => {
      if (n === 1) return;
      read.push(
        Array.from({ length: head.length }, (_, i) => {
          const v = row.getCell(i + 1).value;
          // eslint-disable-next-line @typescript-eslint/no-base-to-string -- the report's cells hold dates, strings and numbers
          return v instanceof Date ? v.toISOString().slice(0, 10) : v == null ? '' : String(v);
        }),
      );
    });
    expect(read).toEqual(expected);
    expect(sheet.getRow(2).getCell(4).value).toBeInstanceOf(Date);
  });
});
