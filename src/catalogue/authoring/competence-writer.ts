import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { CompetenceRow } from '../competences/competence.row';

/** The columns a competence is written with (ids of persons already resolved). */
export type CompetenceColumns = Partial<
  Pick<
    CompetenceRow,
    | 'parent_id'
    | 'title'
    | 'description'
    | 'type'
    | 'active'
    | 'valid_months'
    | 'pass_mark'
    | 'competence_group_id'
    | 'owner_id'
    | 'instructor_id'
    | 'checked_by'
    | 'lms_start_url'
    | 'custom_attributes'
  >
>;

/** What keeps a competence (or one below it) from being deleted: counts, zero when free. */
export interface CatalogueHolds {
  /** persons with a current registration (neither superseded nor deleted) */
  persons: number;
  /** roles with a requirement on it */
  roles: number;
}

/**
 * Writes competences and their categories and attributes (catalogue authoring). Take it from the
 * change's transaction (`tx.get(CompetenceWriter)`); `lock` first, so concurrent registrations and
 * events wait for the change (their foreign keys need the row) instead of racing a delete.
 */
@injectable()
export class CompetenceWriter {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  /** The rows of the given competences, locked for the transaction; missing ids are left out. */
  async lock(ids: readonly number[]): Promise<CompetenceRow[]> {
    if (ids.length === 0) return [];
    return this.db
      .table('competences')
      .whereIn('id', [...ids])
      .orderBy('id')
      .forUpdate();
  }

  async insert(columns: CompetenceColumns): Promise<number> {
    const sortOrder =
      columns.parent_id == null
        ? 0
        : this.db.raw('(select coalesce(max(sort_order), -1) + 1 from ?? where parent_id = ?)', [this.db.ref('competences'), columns.parent_id]);
    const row = { ...columns, sort_order: sortOrder } as Record<string, unknown>;
    if (columns.custom_attributes) row.custom_attributes = JSON.stringify(columns.custom_attributes);
    const [r] = await this.db.table('competences').insert(row).returning('id');
    return r.id;
  }

  /** Changes the columns given and marks the competence changed (the changes feed reads updated_at). */
  async update(id: number, columns: CompetenceColumns): Promise<void> {
    const row = { ...columns, updated_at: this.db.raw('now()') } as Record<string, unknown>;
    if (columns.custom_attributes) row.custom_attributes = JSON.stringify(columns.custom_attributes);
    await this.db.table('competences').where({ id }).update(row);
  }

  async setCategories(id: number, categoryIds: readonly number[]): Promise<void> {
    await this.db.table('competence_categories').where({ competence_id: id }).delete();
    if (categoryIds.length)
      await this.db.table('competence_categories').insert([...new Set(categoryIds)].map((category_id) => ({ competence_id: id, category_id })));
  }

  async setAttributes(id: number, attributeIds: readonly number[]): Promise<void> {
    await this.db.table('competence_attributes').where({ competence_id: id }).delete();
    if (attributeIds.length)
      await this.db.table('competence_attributes').insert([...new Set(attributeIds)].map((attribute_id) => ({ competence_id: id, attribute_id })));
  }

  /** The competence and every one below it (modules, items, questions), top first. */
  async subtree(id: number): Promise<CompetenceRow[]> {
    const r = await this.db.raw<{ rows: CompetenceRow[] }>(
      `with recursive down as (
         select c.*, 0 as depth from ?? c where c.id = ?
         union all select c.*, d.depth + 1 from ?? c join down d on c.parent_id = d.id)
       select * from down order by depth, sort_order, id`,
      [this.db.ref('competences'), id, this.db.ref('competences')],
    );
    return r.rows.map(({ depth: _depth, ...row }: any) => row);
  }

  /** Whether any registration (current or history) names the competence: its type is then fixed. */
  async hasRegistrations(id: number): Promise<boolean> {
    return !!(await this.db.table('person_competences').where({ competence_id: id }).first('id'));
  }

  /** Who holds the competences (current registrations) and which roles require them. */
  async holds(ids: readonly number[]): Promise<CatalogueHolds> {
    const [persons] = await this.db
      .table('person_competences')
      .whereIn('competence_id', [...ids])
      .whereNull('superseded_at')
      .whereNull('deleted_at')
      .countDistinct({ n: 'person_id' });
    const [roles] = await this.db
      .table('requirements')
      .whereIn('competence_id', [...ids])
      .countDistinct({ n: 'role_id' });
    return { persons: Number(persons.n), roles: Number(roles.n) };
  }

  /**
   * Deletes the competence with everything below it (the foreign keys cascade: categories,
   * attributes, organisations, registration history), leaving a tombstone per competence for the
   * changes feed. Call after `holds` found nothing, under `lock`.
   */
  async delete(subtree: readonly CompetenceRow[]): Promise<void> {
    await this.db
      .table('competence_deletions')
      .insert(subtree.map((c) => ({ competence_id: c.id, parent_id: c.parent_id, title: c.title, type: c.type, competence_group_id: c.competence_group_id })));
    await this.db.table('competences').where({ id: subtree[0].id }).delete();
  }

  /** The owners of the competence and of every competence above it; null when it does not exist. */
  async ownersUp(id: number): Promise<number[] | null> {
    const r = await this.db.raw<{ rows: { owner_id: number | null }[] }>(
      `with recursive up(id, parent_id, owner_id) as (
         select id, parent_id, owner_id from ?? where id = ?
         union select c.id, c.parent_id, c.owner_id from ?? c join up on c.id = up.parent_id)
       select owner_id from up`,
      [this.db.ref('competences'), id, this.db.ref('competences')],
    );
    if (r.rows.length === 0) return null;
    return r.rows.map((x) => x.owner_id).filter((x): x is number => x !== null);
  }

  /** Ids of the competences strictly above `id` (its parent, the parent's parent, ...). */
  async ancestorIds(id: number): Promise<number[]> {
    const r = await this.db.raw<{ rows: { id: number }[] }>(
      `with recursive up(id, parent_id) as (
         select id, parent_id from ?? where id = ?
         union select c.id, c.parent_id from ?? c join up on c.id = up.parent_id)
       select id from up where id <> ?`,
      [this.db.ref('competences'), id, this.db.ref('competences'), id],
    );
    return r.rows.map((x) => x.id);
  }
}
