import { describe, expect, it } from 'vitest';
import { CompetenceStates, stateOf } from '../../../src/catalogue/personcompetences/competence-state';
import type { CompetenceRow } from '../../../src/catalogue/competences/competence.row';
import type { RegistrationRow } from '../../../src/catalogue/personcompetences/personcompetences.repository';

/** Whether a person holds a competence, per type, on in-memory competences and registrations. */

const TODAY = '2030-06-15';

const competence = (id: number, type: string, over: Partial<CompetenceRow> = {}): CompetenceRow => ({
  id,
  parent_id: null,
  title: `c${id}`,
  description: null,
  type,
  active: true,
  valid_months: null,
  competence_group_id: null,
  owner_id: null,
  instructor_id: null,
  checked_by: null,
  lms_start_url: null,
  custom_attributes: {},
  sort_order: 0,
  created_at: new Date(0),
  updated_at: new Date(0),
  ...over,
});

const registration = (competenceId: number, over: Partial<RegistrationRow> = {}): RegistrationRow => ({
  id: competenceId * 10,
  person_id: 1,
  competence_id: competenceId,
  passed: 100,
  date: '2030-01-01',
  valid_until: null,
  comments: null,
  grade: null,
  school: null,
  graduation_year: null,
  skill_level: null,
  checked: null,
  signed: null,
  show_course_diploma: null,
  override: false,
  registered_by: null,
  created_at: new Date(0),
  ...over,
});

describe('competence state rules', () => {
  it('not registered, expired before today, valid through today, failed (passed 0)', () => {
    const course = competence(1, 'course');
    expect(stateOf(course, undefined, [], TODAY)).toMatchObject({ held: false, reason: 'not_registered' });
    expect(stateOf(course, registration(1, { valid_until: '2030-06-14' }), [], TODAY)).toMatchObject({ held: false, reason: 'expired' });
    expect(stateOf(course, registration(1, { valid_until: TODAY }), [], TODAY)).toMatchObject({ held: true, reason: null });
    expect(stateOf(course, registration(1, { passed: 0 }), [], TODAY)).toMatchObject({ held: false, reason: 'not_passed' });
  });

  it('a checklist item needs checked or a manager override; a signature needs signed (passed does not matter)', () => {
    const item = competence(2, 'checklist_item');
    expect(stateOf(item, registration(2, { checked: false }), [], TODAY).reason).toBe('not_checked');
    expect(stateOf(item, registration(2, { checked: false, override: true }), [], TODAY).held).toBe(true);
    expect(stateOf(item, registration(2, { checked: true, passed: 0 }), [], TODAY).held).toBe(true);
    const signature = competence(3, 'signature');
    expect(stateOf(signature, registration(3, { signed: null }), [], TODAY).reason).toBe('not_signed');
    expect(stateOf(signature, registration(3, { signed: true }), [], TODAY).held).toBe(true);
    // expiry comes first, whatever the type
    expect(stateOf(signature, registration(3, { signed: true, valid_until: '2030-01-01' }), [], TODAY).reason).toBe('expired');
  });

  it('a checklist is held when all its items are, or when registered itself; an unregistered one misses items', () => {
    const list = competence(4, 'checklist');
    const held = stateOf(competence(5, 'checklist_item'), registration(5, { checked: true }), [], TODAY);
    const missing = stateOf(competence(6, 'checklist_item'), undefined, [], TODAY);
    expect(stateOf(list, undefined, [held], TODAY)).toMatchObject({ held: true, reason: null });
    expect(stateOf(list, undefined, [held, missing], TODAY)).toMatchObject({ held: false, reason: 'items_missing' });
    expect(stateOf(list, undefined, [], TODAY)).toMatchObject({ held: false, reason: 'items_missing' });
    expect(stateOf(list, registration(4), [held, missing], TODAY).held).toBe(true);
    // registered but expired, with an item missing: the registration's own reason is told
    expect(stateOf(list, registration(4, { valid_until: '2030-01-01' }), [missing], TODAY).reason).toBe('expired');
  });

  it('CompetenceStates evaluates a checklist with its items from the repositories, on the tenant day', async () => {
    const list = competence(10, 'checklist');
    const items = [competence(11, 'checklist_item', { parent_id: 10 }), competence(12, 'checklist_item', { parent_id: 10 })];
    const course = competence(20, 'course');
    const competences = {
      byIds: async (ids: number[]) => [list, course].filter((c) => ids.includes(c.id)),
      descendants: async (ids: number[]) => items.filter((i) => ids.includes(i.parent_id!)),
    };
    const regs = [registration(11, { checked: true }), registration(12, { checked: false, override: true }), registration(20, { valid_until: '2030-06-16' })];
    const registrations = { current: async () => regs };
    const states = await new CompetenceStates(competences, registrations, { today: () => TODAY }).evaluate(1, [10, 20]);
    expect(states.map((s) => [s.competence.id, s.held, s.reason])).toEqual([
      [10, true, null],
      [20, true, null],
    ]);
    expect(states[0].children.map((k) => k.held)).toEqual([true, true]);
    const later = await new CompetenceStates(competences, registrations, { today: () => '2030-06-17' }).evaluate(1, [20]);
    expect(later[0]).toMatchObject({ held: false, reason: 'expired' });
    expect(await new CompetenceStates(competences, registrations, { today: () => TODAY }).evaluate(1, [])).toEqual([]);
  });
});
