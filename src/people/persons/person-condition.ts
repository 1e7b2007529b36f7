import type { Knex } from 'knex';
import { ApiError } from '../../platform/errors/api-error';

/** Columns a condition may test; `active` is "not deactivated". */
export const CONDITION_COLUMNS = [
  'id',
  'user_name',
  'extern_person_id',
  'email',
  'mobile',
  'phone',
  'firstname',
  'lastname',
  'jobtitle',
  'employee_code',
  'language',
  'active',
  'created_at',
  'updated_at',
] as const;
export type ConditionColumn = (typeof CONDITION_COLUMNS)[number];
export type ConditionOp = 'eq' | 'ne' | 'co' | 'sw' | 'ew' | 'pr' | 'gt' | 'ge' | 'lt' | 'le';

/**
 * A condition on persons' attributes (SCIM filters, translated by the SCIM flow): and, or, not, and
 * tests of one column. user_name and email compare case-insensitively, the rest exactly.
 */
export type PersonCondition =
  | { and: PersonCondition[] }
  | { or: PersonCondition[] }
  | { not: PersonCondition }
  | { always: boolean }
  | { ids: number[] }
  | { column: ConditionColumn; op: ConditionOp; value?: string | number | boolean | null };

const CASE_INSENSITIVE = new Set<ConditionColumn>(['user_name', 'email', 'language']);
// stored in lower case already (person-data.schema.ts): the value is lowered, the column used as it is (its index)
const STORED_LOWER = new Set<ConditionColumn>(['email']);
const ORDERED: Record<string, string> = { gt: '>', ge: '>=', lt: '<', le: '<=' };
const likeEscape = (v: string) => v.replace(/[\\%_]/g, (m) => `\\${m}`);

function test(q: Knex.QueryBuilder, alias: string, c: Extract<PersonCondition, { column: unknown }>): void {
  if (c.column === 'active') {
    if (c.op === 'pr') return void q.whereRaw('true');
    if (typeof c.value !== 'boolean' || (c.op !== 'eq' && c.op !== 'ne')) throw ApiError.malformed('filter', 'active compares with eq or ne and true or false');
    const active = c.op === 'eq' ? c.value : !c.value;
    return void (active ? q.whereNull(`${alias}.deactivated_at`) : q.whereNotNull(`${alias}.deactivated_at`));
  }
  const col = `${alias}.${c.column}`;
  if (c.op === 'pr') return void q.whereNotNull(col).whereNot(col, '');
  if (c.value === null || c.value === undefined) {
    if (c.op === 'eq') return void q.whereNull(col);
    if (c.op === 'ne') return void q.whereNotNull(col);
    throw ApiError.malformed('filter', `${c.op} needs a value`);
  }
  const ci = CASE_INSENSITIVE.has(c.column);
  if (c.column === 'id') {
    if (!/^\d{1,9}$/.test(String(c.value))) return void q.whereRaw(c.op === 'ne' ? 'true' : 'false');
  }
  const value = String(c.value);
  const quoted = `${col.replace('.', '."')}"`;
  const lhs = ci && !STORED_LOWER.has(c.column) ? `lower(${quoted})` : quoted;
  const rhs = ci ? value.toLowerCase() : value;
  switch (c.op) {
    case 'eq':
      return void q.whereRaw(c.column === 'id' ? `${lhs} = ?::integer` : `${lhs} = ?`, [rhs]);
    case 'ne':
      return void q.whereRaw(`${lhs}::text is distinct from ?`, [rhs]);
    case 'co':
      return void q.whereRaw(`${lhs}::text like ?`, [`%${likeEscape(rhs)}%`]);
    case 'sw':
      return void q.whereRaw(`${lhs}::text like ?`, [`${likeEscape(rhs)}%`]);
    case 'ew':
      return void q.whereRaw(`${lhs}::text like ?`, [`%${likeEscape(rhs)}`]);
    default:
      if (c.column !== 'created_at' && c.column !== 'updated_at') throw ApiError.malformed('filter', `${c.op} compares dates only`);
      if (Number.isNaN(Date.parse(value))) throw ApiError.malformed('filter', `${value} is no date`);
      return void q.whereRaw(`${lhs} ${ORDERED[c.op]} ?::timestamptz`, [value]);
  }
}

/** Adds `c` to `q` (persons aliased `alias`). */
export function whereCondition(q: Knex.QueryBuilder, alias: string, c: PersonCondition): void {
  if ('and' in c) return void q.where((w) => c.and.forEach((x) => void w.where((i) => whereCondition(i, alias, x))));
  if ('or' in c) return void q.where((w) => c.or.forEach((x) => void w.orWhere((i) => whereCondition(i, alias, x))));
  if ('not' in c) return void q.whereNot((w) => whereCondition(w, alias, c.not));
  if ('always' in c) return void q.whereRaw(c.always ? 'true' : 'false');
  if ('ids' in c) return void q.whereIn(`${alias}.id`, c.ids);
  test(q, alias, c);
}
