import { describe, expect, it } from 'vitest';
import { CHILD_TYPES, COMPETENCE_TYPE_IDS, isWebUrl, mergeCustomAttributes, misfitChildren, placementProblem } from '../../../src/catalogue';
import { ApiError } from '../../../src/platform/errors/api-error';

describe('where a competence may sit (fast, no database)', () => {
  it('nested types need an allowing parent; every other type stays at the top', () => {
    const allowed: string[] = [];
    for (const type of COMPETENCE_TYPE_IDS) {
      if (placementProblem(type, null) === null) allowed.push(`${type} at the top`);
      for (const parent of COMPETENCE_TYPE_IDS) if (placementProblem(type, parent) === null) allowed.push(`${type} in ${parent}`);
    }
    expect(allowed.sort()).toEqual(
      [
        'course at the top',
        'group at the top',
        'ecourse at the top',
        'checklist at the top',
        'signature at the top',
        'formal at the top',
        'skill at the top',
        'survey at the top',
        'module in course',
        'module in group',
        'checklist_item in checklist',
        'question in survey',
        'question in question',
      ].sort(),
    );
    expect(placementProblem('module', null)).toMatch(/needs a parent_id \(a course or group\)/);
    expect(placementProblem('module', 'survey')).toMatch(/cannot be placed under a survey; its parent must be a course or group/);
    expect(Object.keys(CHILD_TYPES).sort()).toEqual([...COMPETENCE_TYPE_IDS].sort());
  });

  it('misfitChildren names the child types a new type cannot hold', () => {
    expect(misfitChildren('group', ['module', 'module'])).toEqual([]);
    expect(misfitChildren('checklist', ['module'])).toEqual(['module']);
    expect(misfitChildren('skill', [])).toEqual([]);
  });

  it('lms_start_url: absolute http and https only', () => {
    expect(['https://lms.example/x', 'http://10.0.0.1:8080/a?b=c'].map(isWebUrl)).toEqual([true, true]);
    expect(['javascript:alert(1)', 'data:text/html,x', '/relative', 'ftp://x.example/', 'https://', 'JaVaScRiPt:alert(1)'].map(isWebUrl)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('custom attributes of a competence', () => {
  const defs = [
    { name: 'region', label: 'Region', type: 'string' as const, applies_to: ['competence' as const, 'event' as const] },
    { name: 'hours', label: 'Hours', type: 'number' as const, applies_to: ['competence' as const] },
    { name: 'external', label: 'External', type: 'boolean' as const, applies_to: ['competence' as const] },
    { name: 'cost_centre', label: 'Cost centre', type: 'string' as const, applies_to: ['event' as const] },
  ];
  const merge = (current: object, given: object) => mergeCustomAttributes(defs, current as any, given as any, 'competence_data[custom_attributes]');
  const refusal = (given: object) => {
    try {
      merge({}, given);
    } catch (e) {
      return (e as ApiError).extra.parameter;
    }
    return 'accepted';
  };

  it('stores values typed, merges over the stored ones, an empty value removes one', () => {
    expect(merge({ region: 'north', hours: 3 }, { hours: '12.5', external: 'true' })).toEqual({ region: 'north', hours: 12.5, external: true });
    expect(merge({ region: 'north', hours: 3 }, { region: '', external: 0 })).toEqual({ hours: 3, external: false });
  });

  it('refuses names not defined for competences and values not of the defined type, naming the attribute', () => {
    expect(refusal({ colour: 'red' })).toBe('competence_data[custom_attributes][colour]');
    expect(refusal({ cost_centre: 'CC-1' })).toBe('competence_data[custom_attributes][cost_centre]');
    expect(refusal({ hours: 'many' })).toBe('competence_data[custom_attributes][hours]');
    expect(refusal({ external: 'maybe' })).toBe('competence_data[custom_attributes][external]');
    expect(refusal({ region: { nested: 1 } })).toBe('competence_data[custom_attributes][region]');
    expect(refusal({ region: 'x'.repeat(1001) })).toBe('competence_data[custom_attributes][region]');
  });
});
