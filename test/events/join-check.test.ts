import { describe, expect, it } from 'vitest';
import { ageOn } from '../../src/events/join-check';

describe('ageOn', () => {
  it('counts a birthday only once it has been reached', () => {
    expect(ageOn('2010-06-15', new Date('2026-11-22T00:00:00Z'))).toBe(16);
    expect(ageOn('2008-06-15', new Date('2026-06-14T23:59:00Z'))).toBe(17);
    expect(ageOn('2008-06-15', new Date('2026-06-15T00:00:00Z'))).toBe(18);
    expect(ageOn('1990-04-01', new Date('2031-12-10T08:00:00Z'))).toBe(41);
  });
});
