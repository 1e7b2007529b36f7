import { ScimError, scimBoolean, type PatchOperation, type ScimFilter } from '../../identity';
import { attrOf, isObject, languageOf, managerOf, pickValue, text, type ScimUserState } from './scim-user-state';

/** The `type` a value filter names (`emails[type eq "work"]`), lower case; undefined when it names none. */
function filterType(f: ScimFilter | undefined, attr: string): string | undefined {
  if (!f) return undefined;
  if (f.op === 'eq' && f.attr === `${attr}.type` && typeof f.value === 'string') return f.value.toLowerCase();
  if (f.op === 'and') return filterType(f.left, attr) ?? filterType(f.right, attr);
  return undefined;
}

/** The single value an add or replace writes into a multi-valued attribute's kept entry. */
function multiValue(op: PatchOperation, attr: string, types: string[], fallback: boolean): string | null {
  if (op.op === 'remove') return null;
  if (op.path!.filter || op.path!.sub) {
    const v = op.value;
    if (op.path!.sub === 'value' || op.path!.sub === undefined) return isObject(v) ? text(attrOf(v, 'value'), `${attr}.value`) : text(v, `${attr}.value`);
    return undefined as never;
  }
  return pickValue(op.value, attr, types, fallback);
}

/**
 * Applies PATCH operations (normalizePatch's) to a user's state, as Entra ID and Okta send them:
 * `name.givenName`, `emails[type eq "work"].value`, `phoneNumbers[type eq "mobile"].value`, the
 * enterprise extension's `department`, `employeeNumber`, `manager` (a bare id or `{value}`),
 * `active` as a boolean or "True"/"False". Attributes this product does not keep (addresses,
 * displayName, locale, other e-mail or phone types...) are accepted and ignored.
 */
export function applyUserPatch(state: ScimUserState, ops: PatchOperation[]): ScimUserState {
  const s = { ...state };
  for (const op of ops) {
    const { attr, sub, filter } = op.path!;
    const clear = op.op === 'remove';
    switch (attr) {
      case 'username':
        if (clear) throw new ScimError(400, 'userName cannot be removed', 'mutability');
        s.userName =
          text(op.value, 'userName') ??
          (() => {
            throw ScimError.invalidValue('userName must not be empty');
          })();
        break;
      case 'name': {
        const parts: [string, unknown][] = sub
          ? [[sub, op.value]]
          : isObject(op.value)
            ? Object.entries(op.value).map(([k, v]) => [k.toLowerCase(), v])
            : clear
              ? [
                  ['givenname', null],
                  ['familyname', null],
                ]
              : [];
        if (!sub && !clear && !isObject(op.value)) throw ScimError.invalidValue('name takes an object');
        for (const [k, v] of parts) {
          if (k === 'givenname') s.givenName = clear ? null : text(v, 'name.givenName');
          else if (k === 'familyname') s.familyName = clear ? null : text(v, 'name.familyName');
        }
        break;
      }
      case 'emails': {
        const type = filterType(filter, 'emails');
        if (type !== undefined && type !== 'work') break;
        if (sub !== undefined && sub !== 'value') break;
        s.email = multiValue(op, 'emails', ['work'], true);
        break;
      }
      case 'phonenumbers': {
        const type = filterType(filter, 'phonenumbers');
        if (filter ? type !== 'mobile' : false) break;
        if (sub !== undefined && sub !== 'value') break;
        s.mobile = multiValue(op, 'phoneNumbers', ['mobile'], false);
        break;
      }
      case 'title':
        s.title = clear ? null : text(op.value, 'title');
        break;
      case 'preferredlanguage':
        s.preferredLanguage = clear ? null : languageOf(op.value);
        break;
      case 'externalid':
        s.externalId = clear ? null : text(op.value, 'externalId');
        break;
      case 'active':
        if (clear) throw new ScimError(400, 'active cannot be removed', 'mutability');
        s.active = scimBoolean(op.value, 'active');
        break;
      case 'enterprise:employeenumber':
        s.employeeNumber = clear ? null : text(op.value, 'employeeNumber');
        break;
      case 'enterprise:department':
        s.department = clear ? null : text(op.value, 'department');
        break;
      case 'enterprise:manager':
        s.manager = clear ? null : sub === 'value' ? text(op.value, 'manager.value') : managerOf(op.value);
        break;
      default:
        // kept by no column (addresses, displayName, locale, groups, costCenter, ...): accepted, ignored
        break;
    }
  }
  return s;
}
