import { z } from 'zod';
import type { ViewName } from '../../platform/http/param-types';
import type { CompetenceRow } from './competence.row';
import type { CompetenceExtras } from './competences.repository';
import { COMPETENCE_TYPE_IDS } from './competence-types';

const simpleShape = {
  competence_id: z.number().int(),
  title: z.string(),
  type: z.enum(COMPETENCE_TYPE_IDS),
  active: z.boolean(),
  parent_id: z.number().int().nullable().describe('the parent competence (course of a module, checklist of an item); null at the top'),
  competence_group_id: z.number().int().nullable(),
  valid_months: z.number().int().nullable().describe('months a registration stays valid; null: does not expire'),
  checked_by: z.string().nullable().optional().describe('checklist items: who checks it (self, manager or both); in the simple view only on checklist items'),
  lms_start_url: z.string().nullable().optional().describe('e-courses: start URL in the learning system; in the simple view only on e-courses'),
};

/** A nested competence (children are always shown in the simple view). */
export const CompetenceSimpleView: z.ZodType = z
  .object({
    ...simpleShape,
    children: z.array(z.lazy(() => CompetenceSimpleView)).describe('modules, checklist items or survey questions, simple view, recursively'),
  })
  .meta({ id: 'CompetenceChild' });

/** Competence, simple view (lists, view=simple). */
export const Competence = z
  .object({
    ...simpleShape,
    children: z.array(CompetenceSimpleView).describe('modules, checklist items or survey questions, simple view, recursively'),
  })
  .describe('Competence, simple view (lists by default, view=simple)')
  .meta({ id: 'Competence' });

/** Competence, full view (one by id, view=full): every field below is always present there. */
export const CompetenceFull = Competence.extend({
  description: z.string().nullable(),
  competence_group_name: z.string().nullable(),
  categories: z.array(z.object({ category_id: z.number().int(), name: z.string() })),
  attributes: z.array(z.object({ attribute_id: z.number().int(), name: z.string() })),
  pass_mark: z.number().int().nullable().describe('0..100: a result (PUT /api/participants) at or above it passes and registers the competence; null: 100'),
  owner_user_name: z.string().nullable(),
  instructor_user_name: z.string().nullable(),
  checked_by: z.string().nullable().describe('checklist items: who checks it (self, manager or both)'),
  lms_start_url: z.string().nullable().describe('e-courses: start URL in the learning system'),
  custom_attributes: z.record(z.string(), z.unknown()).describe("names defined in the tenant's custom_attributes config item"),
  updated_at: z.string().describe('ISO 8601 date-time'),
})
  .describe('Competence, full view (one by id by default, view=full)')
  .meta({ id: 'CompetenceFull' });

/** A competence answer: full or simple, as the call's view asks. */
export const CompetenceView = z.union([CompetenceFull, Competence]);

/** Competence objects: simple in lists and nested children, full for one by id. */
export class CompetencePresenter {
  private readonly childrenOf = new Map<number, CompetenceRow[]>();

  /** `userNames`: of the owners and instructors (`personIdsOf`), by person id. */
  constructor(
    descendants: CompetenceRow[],
    private readonly extras: CompetenceExtras,
    private readonly userNames: ReadonlyMap<number, string>,
  ) {
    for (const d of descendants) this.childrenOf.set(d.parent_id!, [...(this.childrenOf.get(d.parent_id!) ?? []), d]);
  }

  present(c: CompetenceRow, view: ViewName): Record<string, unknown> {
    const simple: Record<string, unknown> = {
      competence_id: c.id,
      title: c.title,
      type: c.type,
      active: c.active,
      parent_id: c.parent_id,
      competence_group_id: c.competence_group_id,
      valid_months: c.valid_months,
    };
    if (c.type === 'checklist_item') simple.checked_by = c.checked_by;
    if (c.type === 'ecourse') simple.lms_start_url = c.lms_start_url;
    // Nested objects always use the simple representation.
    simple.children = (this.childrenOf.get(c.id) ?? []).map((k) => this.present(k, 'simple'));
    if (view === 'simple') return simple;
    const name = (id: number | null) => (id === null ? null : (this.userNames.get(id) ?? null));
    return {
      ...simple,
      description: c.description,
      competence_group_name: c.competence_group_id === null ? null : (this.extras.groups.get(c.competence_group_id) ?? null),
      categories: this.extras.categories.get(c.id) ?? [],
      attributes: this.extras.attributes.get(c.id) ?? [],
      pass_mark: c.pass_mark ?? null,
      owner_user_name: name(c.owner_id),
      instructor_user_name: name(c.instructor_id),
      checked_by: c.checked_by,
      lms_start_url: c.lms_start_url,
      custom_attributes: c.custom_attributes,
      updated_at: c.updated_at,
    };
  }
}

/** The persons the full view names: owners and instructors. */
export function personIdsOf(rows: readonly CompetenceRow[]): number[] {
  return [...new Set(rows.flatMap((r) => [r.owner_id, r.instructor_id]).filter((x): x is number => x !== null))];
}
