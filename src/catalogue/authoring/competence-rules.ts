import type { CustomAttributeDefinition } from '../../platform/config-items/config-item-registry';
import { ApiError } from '../../platform/errors/api-error';
import { COMPETENCE_TYPES, type CompetenceType } from '../competences/competence-types';

/**
 * Which types a competence of each type may hold as children (README "Authoring"): modules in a
 * course or a course group, items in a checklist, questions in a survey and follow-up questions
 * under a question. Every other type has no children.
 */
export const CHILD_TYPES: Record<CompetenceType, readonly CompetenceType[]> = {
  course: ['module'],
  group: ['module'],
  module: [],
  ecourse: [],
  checklist: ['checklist_item'],
  checklist_item: [],
  signature: [],
  formal: [],
  skill: [],
  survey: ['question'],
  question: ['question'],
};

/** Types that only exist inside another competence (module, checklist item, survey question). */
export const isNestedType = (type: string): boolean => COMPETENCE_TYPES.some((t) => t.id === type && t.nested);

const parentsOf = (type: string) =>
  Object.entries(CHILD_TYPES)
    .filter(([, children]) => children.includes(type as CompetenceType))
    .map(([parent]) => parent);

/** Why a competence of `type` cannot sit under a parent of `parentType` (null: at the top), or null when it can. */
export function placementProblem(type: string, parentType: string | null): string | null {
  if (parentType === null) return isNestedType(type) ? `a ${type} needs a parent_id (a ${parentsOf(type).join(' or ')})` : null;
  if (!isNestedType(type)) return `a ${type} cannot have a parent; only modules, checklist items and survey questions are nested`;
  if (!(CHILD_TYPES[parentType as CompetenceType] ?? []).includes(type as CompetenceType)) {
    return `a ${type} cannot be placed under a ${parentType}; its parent must be a ${parentsOf(type).join(' or ')}`;
  }
  return null;
}

/** Child types that a competence of `type` cannot hold, or an empty list. */
export function misfitChildren(type: string, childTypes: readonly string[]): string[] {
  const allowed = CHILD_TYPES[type as CompetenceType] ?? [];
  return [...new Set(childTypes.filter((c) => !allowed.includes(c as CompetenceType)))];
}

/** lms_start_url: an absolute http or https URL (no javascript:, data:, relative paths). */
export function isWebUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * The custom attributes of a competence after a change: `given` is checked against the tenant's
 * definitions that apply to competences (unknown name: 420 naming `param[name]`; value of the
 * definition's type: string, number, or boolean as 1/0/true/false) and merged over `current`;
 * an empty value (or null) removes the attribute.
 */
export function mergeCustomAttributes(
  definitions: readonly CustomAttributeDefinition[],
  current: Record<string, unknown>,
  given: Record<string, unknown>,
  param: string,
): Record<string, unknown> {
  const defs = definitions.filter((d) => d.applies_to.includes('competence'));
  const out: Record<string, unknown> = { ...current };
  for (const [name, raw] of Object.entries(given)) {
    const at = `${param}[${name}]`;
    const def = defs.find((d) => d.name === name);
    if (!def) throw ApiError.malformed(at, `unknown custom attribute "${name}" for competences; defined: ${defs.map((d) => d.name).join(', ') || 'none'}`);
    if (raw === null || raw === '') {
      delete out[name];
      continue;
    }
    out[name] = typedValue(def, raw, at);
  }
  return out;
}

function typedValue(def: CustomAttributeDefinition, raw: unknown, at: string): unknown {
  if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') throw ApiError.malformed(at, 'must be a single value');
  const text = String(raw).trim();
  if (def.type === 'number') {
    const n = Number(text);
    if (text === '' || !Number.isFinite(n)) throw ApiError.malformed(at, `must be a number (custom attribute "${def.name}" is of type number)`);
    return n;
  }
  if (def.type === 'boolean') {
    if (['1', 'true'].includes(text.toLowerCase())) return true;
    if (['0', 'false'].includes(text.toLowerCase())) return false;
    throw ApiError.malformed(at, `must be 1/0 or true/false (custom attribute "${def.name}" is of type boolean)`);
  }
  if (text.length > 1000) throw ApiError.malformed(at, 'must be at most 1000 characters');
  return text;
}
