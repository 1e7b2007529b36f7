import { describe, expect, it } from 'vitest';
import { addMonths, endOfDayIn, isTimeZone, startOfDayIn, todayIn } from '../../src/platform/time/tenant-clock';

describe('tenant clock', () => {
  it('adds months keeping to the month end', () => {
    expect(addMonths('2025-01-31', 1)).toBe('2025-02-28');
    expect(addMonths('2024-01-31', 1)).toBe('2024-02-29');
    expect(addMonths('2025-03-31', 1)).toBe('2025-04-30');
    expect(addMonths('2025-08-31', 6)).toBe('2026-02-28');
    expect(addMonths('2025-01-15', 12)).toBe('2026-01-15');
    expect(addMonths('2024-02-29', 12)).toBe('2025-02-28');
  });

  it('takes today in the zone, not in UTC', () => {
    const at = new Date('2026-03-10T12:00:00Z');
    expect(todayIn('UTC', at)).toBe('2026-03-10');
    expect(todayIn('Pacific/Kiritimati', at)).toBe('2026-03-11');
    expect(todayIn('Pacific/Pago_Pago', new Date('2026-03-10T08:00:00Z'))).toBe('2026-03-09');
  });

  it("starts and ends a day at the zone's midnight, across DST too", () => {
    expect(startOfDayIn('Pacific/Kiritimati', '2026-03-11').toISOString()).toBe('2026-03-10T10:00:00.000Z');
    expect(endOfDayIn('Pacific/Kiritimati', '2026-03-10').toISOString()).toBe('2026-03-10T10:00:00.000Z');
    expect(startOfDayIn('Europe/Oslo', '2026-07-01').toISOString()).toBe('2026-06-30T22:00:00.000Z');
    // 25 hours: the day the clocks go back
    expect(endOfDayIn('Europe/Oslo', '2026-10-25').getTime() - startOfDayIn('Europe/Oslo', '2026-10-25').getTime()).toBe(25 * 3_600_000);
  });

  it('knows IANA names only', () => {
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Pacific/Kiritimati')).toBe(true);
    expect(isTimeZone('Mars/Olympus_Mons')).toBe(false);
    expect(isTimeZone('+01:00')).toBe(false);
    expect(isTimeZone('')).toBe(false);
  });
});
