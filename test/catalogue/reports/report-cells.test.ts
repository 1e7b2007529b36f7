import { describe, expect, it } from 'vitest';
import { cellText, neutralise } from '../../../src/flows/reports/report-files';
import { cellStatus } from '../../../src/catalogue';
import type { CompetenceState } from '../../../src/catalogue';

describe('report cells', () => {
  it('text a spreadsheet could take for a formula starts with an apostrophe: = + - @ tab CR', () => {
    for (const v of ['=1+1', '+4790000012', '-2', '@SUM(A1)', '\tx', '\rx']) expect(neutralise(v)).toBe(`'${v}`);
    for (const v of ['Kari', 'a=b', ' =x', '']) expect(neutralise(v)).toBe(v);
    expect(neutralise(null)).toBe('');
  });

  it('a file cell is the status, with the last valid day when there is one (not for missing)', () => {
    const cell = (status: string, valid_until: string | null) => ({
      competence_id: 1,
      title: 't',
      mandatory: true,
      status: status as any,
      date: null,
      valid_until,
    });
    expect(cellText(undefined)).toBe('');
    expect(cellText(cell('expiring', '2026-12-31'))).toBe('expiring 2026-12-31');
    expect(cellText(cell('passed', null))).toBe('passed');
    expect(cellText(cell('missing', '2027-01-01'))).toBe('missing');
  });

  it('expiring: held and valid_until from the day to expiring_within_days after it, both included', () => {
    const held = (valid_until: string | null) => ({ held: true, reason: null, registration: { valid_until } }) as unknown as CompetenceState;
    expect(cellStatus(held('2026-03-10'), '2026-03-10', 60)).toBe('expiring');
    expect(cellStatus(held('2026-05-09'), '2026-03-10', 60)).toBe('expiring');
    expect(cellStatus(held('2026-05-10'), '2026-03-10', 60)).toBe('passed');
    expect(cellStatus(held(null), '2026-03-10', 60)).toBe('passed');
    expect(cellStatus(held('2026-03-10'), '2026-03-10', 0)).toBe('expiring');
    const notHeld = (reason: string) => ({ held: false, reason, registration: undefined }) as unknown as CompetenceState;
    expect(cellStatus(notHeld('expired'), '2026-03-10', 60)).toBe('expired');
    for (const r of ['not_registered', 'not_passed', 'not_checked', 'not_signed', 'items_missing'])
      expect(cellStatus(notHeld(r), '2026-03-10', 60)).toBe('missing');
  });
});
