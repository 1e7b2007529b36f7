import { ScimError, scimBoolean, type ScimFilter } from '../../identity';
import type { ConditionColumn, PersonCondition } from '../../people';

const COLUMNS: Record<string, ConditionColumn> = {
  id: 'id',
  username: 'user_name',
  externalid: 'extern_person_id',
  emails: 'email',
  'emails.value': 'email',
  active: 'active',
  'name.givenname': 'firstname',
  'name.familyname': 'lastname',
  title: 'jobtitle',
  phonenumbers: 'mobile',
  'phonenumbers.value': 'mobile',
  'enterprise:employeenumber': 'employee_code',
  preferredlanguage: 'language',
  'meta.created': 'created_at',
  'meta.lastmodified': 'updated_at',
};

/** The kept e-mail is of type work (and primary); the kept phone number of type mobile. */
const KEPT_TYPE: Record<string, [ConditionColumn, string]> = { 'emails.type': ['email', 'work'], 'phonenumbers.type': ['mobile', 'mobile'] };

/** A SCIM filter on Users as a condition on persons; 400 invalidFilter for an attribute it cannot test. */
export function userCondition(f: ScimFilter): PersonCondition {
  switch (f.op) {
    case 'and':
      return { and: [userCondition(f.left), userCondition(f.right)] };
    case 'or':
      return { or: [userCondition(f.left), userCondition(f.right)] };
    case 'not':
      return { not: userCondition(f.filter) };
    case 'has':
      return userCondition(f.filter);
    default: {
      if (f.attr === 'emails.primary' || f.attr === 'phonenumbers.primary') {
        const column = f.attr === 'emails.primary' ? 'email' : 'mobile';
        return f.op === 'pr' ? { column, op: 'pr' } : { always: f.op === 'eq' && f.value === true };
      }
      const kept = KEPT_TYPE[f.attr];
      if (kept) {
        if (f.op === 'pr') return { column: kept[0], op: 'pr' };
        const same = typeof f.value === 'string' && f.value.toLowerCase() === kept[1];
        if (f.op === 'eq') return same ? { column: kept[0], op: 'pr' } : { always: false };
        throw ScimError.invalidFilter(`${f.attr} compares with eq or pr`);
      }
      const column = COLUMNS[f.attr];
      if (!column)
        throw ScimError.invalidFilter(
          `filtering on ${f.attr} is not supported (userName, externalId, emails.value, active, id, name.givenName, name.familyName, title, phoneNumbers.value, employeeNumber, preferredLanguage, meta.created, meta.lastModified)`,
        );
      if (f.op === 'pr') return { column, op: 'pr' };
      const value = column === 'active' ? scimBoolean(f.value, 'active') : f.value;
      if (column === 'active' && f.op !== 'eq' && f.op !== 'ne') throw ScimError.invalidFilter('active compares with eq or ne');
      return { column, op: f.op, value };
    }
  }
}
