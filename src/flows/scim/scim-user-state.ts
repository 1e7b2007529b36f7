import { CORE_USER_SCHEMA, ENTERPRISE_USER_SCHEMA, ScimError, scimBoolean } from '../../identity';
import type { PersonRow } from '../../people';

/** The SCIM attributes a person carries, flat: what PUT and PATCH compare and write. */
export interface ScimUserState {
  userName: string;
  givenName: string | null;
  familyName: string | null;
  email: string | null;
  mobile: string | null;
  title: string | null;
  externalId: string | null;
  active: boolean;
  employeeNumber: string | null;
  /** The organisation as SCIM names it: what the IdP sent, or the current organisation's name. */
  department: string | null;
  manager: string | null;
  /** preferredLanguage: the person's language (BCP 47). */
  preferredLanguage: string | null;
}

export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `obj[name]` with SCIM's case-insensitive attribute names. */
export function attrOf(obj: Json, name: string): unknown {
  if (name in obj) return obj[name];
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(obj)) if (k.toLowerCase() === lower) return v;
  return undefined;
}

/** A single-valued string attribute: null, absent or "" clear it. */
export function text(v: unknown, attr: string): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'number') return String(v);
  if (typeof v !== 'string') throw ScimError.invalidValue(`${attr} must be a string`);
  return v.trim() === '' ? null : v.trim();
}

/**
 * preferredLanguage as sent (RFC 7643 §4.1.2: an Accept-Language value, "nb-NO" or "da, en-gb;q=0.8"):
 * the first tag, without its weight. Checked as person_data[language] is.
 */
export function languageOf(v: unknown): string | null {
  const t = text(v, 'preferredLanguage');
  return t === null ? null : t.split(',')[0].split(';')[0].trim() || null;
}

/** The manager as sent: `{"value": "id"}` or Entra ID's bare id string. */
export function managerOf(v: unknown): string | null {
  if (isObject(v)) return text(attrOf(v, 'value'), 'manager.value');
  return text(v, 'manager');
}

/** The one address kept of a multi-valued `emails` / `phoneNumbers`: `types` in order of preference, then the primary, then the first. */
export function pickValue(v: unknown, attr: string, types: string[], fallback: boolean): string | null {
  if (v === undefined || v === null) return null;
  const list = Array.isArray(v) ? v : [v];
  const entries = list.map((e) => {
    if (typeof e === 'string') return { value: e, type: undefined, primary: false };
    if (!isObject(e)) throw ScimError.invalidValue(`${attr} holds objects with value`);
    const primary = attrOf(e, 'primary');
    return {
      value: text(attrOf(e, 'value'), `${attr}.value`),
      type: text(attrOf(e, 'type'), `${attr}.type`)?.toLowerCase(),
      primary: primary === undefined ? false : scimBoolean(primary, `${attr}.primary`),
    };
  });
  for (const t of types) {
    const hit = entries.find((e) => e.type === t && e.primary) ?? entries.find((e) => e.type === t);
    if (hit) return hit.value;
  }
  if (!fallback) return null;
  return (entries.find((e) => e.primary) ?? entries[0])?.value ?? null;
}

/** A whole User resource (POST, PUT) as state; `current` supplies what a PUT may leave out (active, department). */
export function stateFromResource(body: unknown, current?: ScimUserState): ScimUserState {
  if (!isObject(body)) throw ScimError.invalidSyntax('a User is a JSON object');
  const userName = text(attrOf(body, 'userName'), 'userName');
  if (!userName) throw ScimError.invalidValue('userName is required');
  const name = attrOf(body, 'name');
  const n = isObject(name) ? name : {};
  const ext = attrOf(body, ENTERPRISE_USER_SCHEMA);
  const e = isObject(ext) ? ext : {};
  const active = attrOf(body, 'active');
  const department = attrOf(e, 'department');
  return {
    userName,
    givenName: text(attrOf(n, 'givenName'), 'name.givenName'),
    familyName: text(attrOf(n, 'familyName'), 'name.familyName'),
    email: pickValue(attrOf(body, 'emails'), 'emails', ['work'], true),
    mobile: pickValue(attrOf(body, 'phoneNumbers'), 'phoneNumbers', ['mobile'], false),
    title: text(attrOf(body, 'title'), 'title'),
    externalId: text(attrOf(body, 'externalId'), 'externalId'),
    active: active === undefined ? (current?.active ?? true) : scimBoolean(active, 'active'),
    employeeNumber: text(attrOf(e, 'employeeNumber'), 'employeeNumber'),
    department: department === undefined ? (current?.department ?? null) : text(department, 'department'),
    manager: managerOf(attrOf(e, 'manager')),
    preferredLanguage: languageOf(attrOf(body, 'preferredLanguage')),
  };
}

/** The person as state. */
export function stateOfPerson(p: PersonRow, organisationName: string | null, manager: string | null): ScimUserState {
  return {
    userName: p.user_name,
    givenName: p.firstname,
    familyName: p.lastname,
    email: p.email,
    mobile: p.mobile,
    title: p.jobtitle,
    externalId: p.extern_person_id,
    active: p.deactivated_at === null,
    employeeNumber: p.employee_code,
    department: organisationName,
    manager,
    preferredLanguage: p.language,
  };
}

const iso = (d: Date) => new Date(d).toISOString();

/** The User resource of a person (RFC 7643 §4.1 and the enterprise extension §4.3). */
export function userResource(p: PersonRow, s: ScimUserState, base: string): Json {
  const formatted = [s.givenName, s.familyName].filter(Boolean).join(' ');
  const enterprise: Json = {};
  if (s.employeeNumber !== null) enterprise.employeeNumber = s.employeeNumber;
  if (s.department !== null) enterprise.department = s.department;
  if (s.manager !== null) enterprise.manager = { value: s.manager };
  return {
    schemas: [CORE_USER_SCHEMA, ...(Object.keys(enterprise).length ? [ENTERPRISE_USER_SCHEMA] : [])],
    id: String(p.id),
    ...(s.externalId !== null ? { externalId: s.externalId } : {}),
    userName: s.userName,
    name: {
      ...(s.givenName !== null ? { givenName: s.givenName } : {}),
      ...(s.familyName !== null ? { familyName: s.familyName } : {}),
      ...(formatted ? { formatted } : {}),
    },
    ...(formatted ? { displayName: formatted } : {}),
    ...(s.title !== null ? { title: s.title } : {}),
    ...(s.email !== null ? { emails: [{ value: s.email, type: 'work', primary: true }] } : {}),
    ...(s.mobile !== null ? { phoneNumbers: [{ value: s.mobile, type: 'mobile' }] } : {}),
    ...(s.preferredLanguage !== null ? { preferredLanguage: s.preferredLanguage } : {}),
    active: s.active,
    ...(Object.keys(enterprise).length ? { [ENTERPRISE_USER_SCHEMA]: enterprise } : {}),
    meta: {
      resourceType: 'User',
      created: iso(p.created_at),
      lastModified: iso(p.updated_at),
      location: `${base}/Users/${p.id}`,
      version: `W/"${new Date(p.updated_at).getTime()}"`,
    },
  };
}
