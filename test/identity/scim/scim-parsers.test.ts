import { describe, expect, it } from 'vitest';
import { ScimError, normalizePatch, parseFilter, parsePath } from '../../../src/identity';

/** The SCIM filter, path and PATCH parsers on their own (no app): the shapes providers send, and refusals. */
describe('parseFilter', () => {
  it('reads comparisons, and/or/not with precedence, parentheses, value filters and URN-qualified names', () => {
    expect(parseFilter('userName eq "a@b.c"')).toEqual({ op: 'eq', attr: 'username', value: 'a@b.c' });
    expect(parseFilter('a eq 1 or b eq true and c pr')).toEqual({
      op: 'or',
      left: { op: 'eq', attr: 'a', value: 1 },
      right: { op: 'and', left: { op: 'eq', attr: 'b', value: true }, right: { op: 'pr', attr: 'c' } },
    });
    expect(parseFilter('not (active eq false)')).toEqual({ op: 'not', filter: { op: 'eq', attr: 'active', value: false } });
    expect(parseFilter('emails[type eq "work" and value co "@x"]')).toEqual({
      op: 'has',
      attr: 'emails',
      filter: { op: 'and', left: { op: 'eq', attr: 'emails.type', value: 'work' }, right: { op: 'co', attr: 'emails.value', value: '@x' } },
    });
    expect(parseFilter('urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber eq "7"')).toMatchObject({
      attr: 'enterprise:employeenumber',
    });
    expect(parseFilter('displayName eq "a \\"quoted\\" name"')).toMatchObject({ value: 'a "quoted" name' });
  });

  it('refuses what is malformed with invalidFilter', () => {
    for (const bad of [
      'userName eq',
      'userName zz "a"',
      '(userName eq "a"',
      'userName eq "a" extra',
      'emails[type eq "a"',
      'eq "a"',
      'urn:x:y eq "a"',
      'a eq unquoted',
    ]) {
      expect(() => parseFilter(bad), bad).toThrow(ScimError);
      try {
        parseFilter(bad);
      } catch (e) {
        expect((e as ScimError).scimType, bad).toBe('invalidFilter');
      }
    }
  });
});

describe('parsePath', () => {
  it('reads attr, attr.sub, attr[filter], attr[filter].sub and the enterprise URN', () => {
    expect(parsePath('name.givenName')).toEqual({ attr: 'name', sub: 'givenname' });
    expect(parsePath('emails[type eq "work"].value')).toEqual({ attr: 'emails', filter: { op: 'eq', attr: 'emails.type', value: 'work' }, sub: 'value' });
    expect(parsePath('members[value eq "12"]')).toEqual({ attr: 'members', filter: { op: 'eq', attr: 'members.value', value: '12' } });
    expect(parsePath('urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager')).toEqual({ attr: 'enterprise:manager' });
    expect(parsePath('urn:ietf:params:scim:schemas:core:2.0:User:userName')).toEqual({ attr: 'username' });
  });
});

describe('normalizePatch', () => {
  it('takes op in any case and splits a value object without path into one operation per attribute', () => {
    const ops = normalizePatch({
      Operations: [
        { op: 'Replace', value: { active: 'False', 'name.givenName': 'A', 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { department: 'D' } } },
        { op: 'REMOVE', path: 'members[value eq "3"]' },
      ],
    });
    expect(ops.map((o) => [o.op, o.path?.attr, o.path?.sub, o.value])).toEqual([
      ['replace', 'active', undefined, 'False'],
      ['replace', 'name', 'givenname', 'A'],
      ['replace', 'enterprise:department', undefined, 'D'],
      ['remove', 'members', undefined, undefined],
    ]);
  });

  it('refuses an unknown op, no Operations, and a remove without path', () => {
    expect(() => normalizePatch({ Operations: [{ op: 'move', path: 'a' }] })).toThrow(/op must be/);
    expect(() => normalizePatch({})).toThrow(/Operations/);
    expect(() => normalizePatch({ Operations: [{ op: 'remove' }] })).toThrow(/path/);
  });
});
