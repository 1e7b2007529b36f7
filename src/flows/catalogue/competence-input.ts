import { inject, injectable } from 'tsyringe';
import { TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import { ApiError } from '../../platform/errors/api-error';
import { PersonDirectory } from '../../people';
import {
  CompetencesRepository,
  CompetenceWriter,
  isWebUrl,
  mergeCustomAttributes,
  placementProblem,
  type CompetenceColumns,
  type CompetenceRow,
} from '../../catalogue';

/** competence_data as the routes parse it: only the fields given; null clears a field. */
export interface CompetenceData {
  title?: string;
  type?: string;
  description?: string | null;
  parent_id?: number | null;
  competence_group_id?: number | null;
  category_ids?: number[];
  attribute_ids?: number[];
  valid_months?: number | null;
  pass_mark?: number | null;
  checked_by?: 'self' | 'manager' | 'both';
  lms_start_url?: string | null;
  owner_user_name?: string | null;
  instructor_user_name?: string | null;
  custom_attributes?: Record<string, unknown>;
  active?: boolean;
}

/** The columns to write and the category and attribute sets to replace (absent: unchanged). */
export interface ResolvedCompetence {
  columns: CompetenceColumns;
  categoryIds?: number[];
  attributeIds?: number[];
  /** the parent as it will be, or null at the top */
  parent: CompetenceRow | null;
}

const P = 'competence_data';

/**
 * competence_data checked against the tenant's data (README "Authoring"): the parent's type must
 * allow the competence's type, referenced groups, categories, attributes and persons must exist,
 * type-specific fields only on their type, custom attributes as the tenant defines them. Each
 * problem is a 420 naming competence_data[field]. `current`: the competence before a change (PUT).
 */
@injectable()
export class CompetenceInput {
  constructor(
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(CompetencesRepository) private readonly competences: CompetencesRepository,
    @inject(CompetenceWriter) private readonly writer: CompetenceWriter,
    @inject(PersonDirectory) private readonly persons: PersonDirectory,
  ) {}

  async resolve(data: CompetenceData, current: CompetenceRow | null): Promise<ResolvedCompetence> {
    const type = data.type ?? current!.type;
    const columns: CompetenceColumns = {};
    for (const key of ['title', 'type', 'description', 'valid_months', 'pass_mark', 'active'] as const) {
      if (data[key] !== undefined) (columns as any)[key] = data[key];
    }
    const parent = await this.placement(data, current, type);
    if (data.parent_id !== undefined) columns.parent_id = data.parent_id;

    if (data.checked_by !== undefined && type !== 'checklist_item')
      throw ApiError.malformed(`${P}[checked_by]`, `only checklist items have checked_by (this is a ${type})`);
    if (type === 'checklist_item') {
      if (data.checked_by !== undefined) columns.checked_by = data.checked_by;
      else if (!current || current.type !== 'checklist_item') columns.checked_by = 'self';
    } else if (current?.checked_by) columns.checked_by = null;

    if (data.lms_start_url != null && type !== 'ecourse')
      throw ApiError.malformed(`${P}[lms_start_url]`, `only e-courses have lms_start_url (this is a ${type})`);
    if (data.lms_start_url != null && !isWebUrl(data.lms_start_url))
      throw ApiError.malformed(`${P}[lms_start_url]`, 'must be an absolute http:// or https:// URL');
    if (type === 'ecourse') {
      if (data.lms_start_url !== undefined) columns.lms_start_url = data.lms_start_url;
    } else if (current?.lms_start_url) columns.lms_start_url = null;

    if (data.competence_group_id != null && !(await this.competences.existingIds('competence_groups', [data.competence_group_id])).size) {
      throw ApiError.malformed(`${P}[competence_group_id]`, `no competence group ${data.competence_group_id}`);
    }
    if (data.competence_group_id !== undefined) columns.competence_group_id = data.competence_group_id;
    if (data.category_ids) await this.allExist('categories', data.category_ids, 'category_ids');
    if (data.attribute_ids) await this.allExist('attributes', data.attribute_ids, 'attribute_ids');
    if (data.owner_user_name !== undefined) columns.owner_id = await this.personId(data.owner_user_name, 'owner_user_name');
    if (data.instructor_user_name !== undefined) columns.instructor_id = await this.personId(data.instructor_user_name, 'instructor_user_name');
    if (data.custom_attributes !== undefined) {
      const defs = this.tenant.config.get('custom_attributes');
      columns.custom_attributes = mergeCustomAttributes(defs, current?.custom_attributes ?? {}, data.custom_attributes, `${P}[custom_attributes]`);
    }
    return { columns, categoryIds: data.category_ids, attributeIds: data.attribute_ids, parent };
  }

  /** The parent after the change, checked: it exists, allows the type, and is not the competence itself or inside it. */
  private async placement(data: CompetenceData, current: CompetenceRow | null, type: string): Promise<CompetenceRow | null> {
    const parentId = data.parent_id !== undefined ? data.parent_id : (current?.parent_id ?? null);
    const param = data.parent_id !== undefined || !current ? `${P}[parent_id]` : `${P}[type]`;
    const parent = parentId === null ? null : ((await this.competences.byId(parentId)) ?? null);
    if (parentId !== null && !parent) throw ApiError.malformed(param, `no competence ${parentId}`);
    if (data.parent_id === undefined && data.type === undefined && current) return parent;
    const problem = placementProblem(type, parent?.type ?? null);
    if (problem) throw ApiError.malformed(param, problem);
    if (current && parent && (parent.id === current.id || (await this.writer.ancestorIds(parent.id)).includes(current.id))) {
      throw ApiError.malformed(
        `${P}[parent_id]`,
        `competence ${parent.id} is ${parent.id === current.id ? 'this competence' : 'inside this competence'}: a competence cannot be placed inside itself`,
      );
    }
    return parent;
  }

  private async allExist(table: 'categories' | 'attributes', ids: number[], field: string): Promise<void> {
    const found = await this.competences.existingIds(table, ids);
    const unknown = ids.filter((id) => !found.has(id));
    if (unknown.length) throw ApiError.malformed(`${P}[${field}]`, `no ${table === 'categories' ? 'category' : 'attribute'} ${unknown.join(', ')}`);
  }

  private async personId(userName: string | null, field: string): Promise<number | null> {
    if (userName === null) return null;
    const person = await this.persons.find({ user_name: userName }, ['id']);
    if (!person) throw ApiError.malformed(`${P}[${field}]`, `no person "${userName}"`);
    return person.id;
  }
}
