import { CORE_GROUP_SCHEMA, ScimError, type PatchOperation, type ScimFilter } from '../../identity';
import { attrOf, isObject, text, type Json } from './scim-user-state';

/** A group as SCIM sees a role: its name, externalId and the ids of the persons holding it. */
export interface ScimGroupState {
  displayName: string;
  externalId: string | null;
  /** Person ids; undefined when not read (excludedAttributes=members). */
  members?: number[];
}

/** Person ids of a `members` value: `[{"value": "12"}, ...]` (a single object too). */
export function memberIds(v: unknown): number[] {
  if (v === undefined || v === null) return [];
  const list = Array.isArray(v) ? v : [v];
  return list.map((m) => {
    const value = isObject(m) ? attrOf(m, 'value') : m;
    const type = isObject(m) ? attrOf(m, 'type') : undefined;
    if (typeof type === 'string' && type.toLowerCase() === 'group') throw ScimError.invalidValue('groups cannot be members of groups here');
    const id = typeof value === 'number' ? String(value) : value;
    if (typeof id !== 'string' || !/^\d{1,9}$/.test(id)) throw ScimError.invalidValue(`member ${JSON.stringify(value)} is no User id`);
    return Number(id);
  });
}

export function groupFromResource(body: unknown): ScimGroupState {
  if (!isObject(body)) throw ScimError.invalidSyntax('a Group is a JSON object');
  const displayName = text(attrOf(body, 'displayName'), 'displayName');
  if (!displayName) throw ScimError.invalidValue('displayName is required');
  if (displayName.length > 200) throw ScimError.invalidValue('displayName must be at most 200 characters');
  return { displayName, externalId: text(attrOf(body, 'externalId'), 'externalId'), members: memberIds(attrOf(body, 'members')) };
}

/** Person ids a `members[value eq "12"]` path names. */
function filteredMembers(f: ScimFilter): number[] {
  if (f.op === 'eq' && f.attr === 'members.value') return memberIds([String(f.value)]);
  if (f.op === 'or') return [...filteredMembers(f.left), ...filteredMembers(f.right)];
  throw ScimError.invalidPath('members can be chosen by value eq "id" only');
}

/**
 * PATCH on a group, as Entra ID and Okta send it: `Add`/`Remove` on `members` with `value: [{value}]`,
 * Okta's `remove` with path `members[value eq "12"]`, replace of displayName (with a path or in a
 * value object) or of all members. Answers the new state and the members added and removed.
 */
export function applyGroupPatch(s: ScimGroupState, ops: PatchOperation[]): ScimGroupState {
  const out: ScimGroupState = { ...s, members: [...(s.members ?? [])] };
  for (const op of ops) {
    const { attr, filter, sub } = op.path!;
    if (attr === 'displayname') {
      if (op.op === 'remove') throw new ScimError(400, 'displayName cannot be removed', 'mutability');
      out.displayName =
        text(op.value, 'displayName') ??
        (() => {
          throw ScimError.invalidValue('displayName must not be empty');
        })();
    } else if (attr === 'externalid') {
      out.externalId = op.op === 'remove' ? null : text(op.value, 'externalId');
    } else if (attr === 'members') {
      if (sub) throw ScimError.invalidPath('members cannot be patched by sub-attribute');
      const current = new Set(out.members);
      if (op.op === 'remove') {
        const gone = filter ? filteredMembers(filter) : op.value === undefined ? [...current] : memberIds(op.value);
        for (const id of gone) current.delete(id);
      } else if (op.op === 'add') {
        for (const id of memberIds(op.value)) current.add(id);
      } else {
        current.clear();
        for (const id of memberIds(op.value)) current.add(id);
      }
      out.members = [...current];
    }
    // other attributes (schemas, meta, ...) are accepted and ignored
  }
  return out;
}

export function groupResource(roleId: number, s: ScimGroupState, base: string, display: Map<number, string>): Json {
  return {
    schemas: [CORE_GROUP_SCHEMA],
    id: String(roleId),
    ...(s.externalId !== null ? { externalId: s.externalId } : {}),
    displayName: s.displayName,
    ...(s.members !== undefined
      ? {
          members: s.members.map((id) => ({
            value: String(id),
            ...(display.has(id) ? { display: display.get(id) } : {}),
            type: 'User',
            $ref: `${base}/Users/${id}`,
          })),
        }
      : {}),
    meta: { resourceType: 'Group', location: `${base}/Groups/${roleId}` },
  };
}
