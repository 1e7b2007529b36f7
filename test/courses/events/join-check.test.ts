import { describe, expect, it } from 'vitest';
import { ageOn } from '../../../src/platform/time/tenant-clock';

describe('ageOn', () => {
  it('counts a birthday only once it has been reached', () => {
    expect(ageOn('2010-06-15', '2026-11-22')).toBe(16);
    expect(ageOn('2008-06-15', '2026-06-14')).toBe(17);
    expect(ageOn('2008-06-15', '2026-06-15')).toBe(18);
    expect(ageOn('1990-04-01', '2031-12-10')).toBe(41);
  });
});
