import type { CompetenceRow } from './competence.row';
import type { CompetenceExtras } from './competences.repository';

export type View = 'simple' | 'full';

/** Competence objects: simple in lists and nested children, full for one by id. */
export class CompetencePresenter {
  private readonly childrenOf = new Map<number, CompetenceRow[]>();

  constructor(
    descendants: CompetenceRow[],
    private readonly extras: CompetenceExtras,
  ) {
    for (const d of descendants) this.childrenOf.set(d.parent_id!, [...(this.childrenOf.get(d.parent_id!) ?? []), d]);
  }

  present(c: CompetenceRow, view: View): Record<string, unknown> {
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
    const name = (id: number | null) => (id === null ? null : (this.extras.persons.get(id) ?? null));
    return {
      ...simple,
      description: c.description,
      competence_group_name: c.competence_group_id === null ? null : (this.extras.groups.get(c.competence_group_id) ?? null),
      categories: this.extras.categories.get(c.id) ?? [],
      attributes: this.extras.attributes.get(c.id) ?? [],
      owner_user_name: name(c.owner_id),
      instructor_user_name: name(c.instructor_id),
      checked_by: c.checked_by,
      lms_start_url: c.lms_start_url,
      custom_attributes: c.custom_attributes,
      updated_at: c.updated_at,
    };
  }
}
