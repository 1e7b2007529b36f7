import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PERSON_SUBJECT_TYPES, SECURITY_EVENT_TYPES } from '../../../src/platform/audit/security-audit';

/**
 * The audit log's trigger (tenant migration 290, or a later one that replaces its function) finds
 * the person of an entry whose subject is a user name by the types listed in it; the kernel's
 * PERSON_SUBJECT_TYPES is the same list for the code. A type in one and not the other would leave
 * entries out of a person's export and erasure.
 */
const MIGRATIONS = path.resolve(__dirname, '../../../migrations/tenant');

function listsOfTheTrigger(): string[][] {
  const files = fs
    .readdirSync(MIGRATIONS)
    .filter((f) => /^\d+_.*\.ts$/.test(f) && fs.readFileSync(path.join(MIGRATIONS, f), 'utf8').includes('audit_log_person_ids'));
  const latest = files.sort().at(-1)!;
  const source = fs.readFileSync(path.join(MIGRATIONS, latest), 'utf8');
  return [...source.matchAll(/type in \(([^)]*)\)/g)].map((m) => [...m[1].matchAll(/'([^']+)'/g)].map((x) => x[1]).sort());
}

describe('person-subject audit types', () => {
  it('the trigger of the audit log lists exactly PERSON_SUBJECT_TYPES, each a known security event type', () => {
    const lists = listsOfTheTrigger();
    expect(lists.length).toBeGreaterThan(0);
    for (const list of lists) expect(list).toEqual([...PERSON_SUBJECT_TYPES].sort());
    for (const type of PERSON_SUBJECT_TYPES) expect(SECURITY_EVENT_TYPES as readonly string[]).toContain(type);
  });
});
