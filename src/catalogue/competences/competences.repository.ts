import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { Paging } from '../../platform/http/param-types';
import type { CompetenceRow } from './competence.row';

export interface CompetenceFilter {
  mode: 'active' | 'inactive' | 'all';
  groupIds?: number[];
  types?: string[];
  term?: string;
  categoryIds?: number[];
  attributeIds?: number[];
  ownerId?: number;
  instructorId?: number;
  /**
   * Each entry: valid in any of these organisations, a sub-query of organisation ids (the given ones
   * and those above them: a restriction to an organisation holds below it too); unrestricted ones always are.
   */
  validIn?: (Knex.QueryBuilder | Knex.Raw)[];
  customAttributes?: Record<string, string>;
}

/** What the full view adds from the catalogue's other tables; owners and instructors are named by the caller. */
export interface CompetenceExtras {
  categories: Map<number, { category_id: number; name: string }[]>;
  attributes: Map<number, { attribute_id: number; name: string }[]>;
  groups: Map<number, string>;
}

@injectable()
export class CompetencesRepository {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  /** Top-level competences (no parent) matching the filter, one page. */
  async search(f: CompetenceFilter, page: Paging): Promise<CompetenceRow[]> {
    const q = this.db.table('competences as c').whereNull('c.parent_id');
    if (f.mode === 'active') q.where('c.active', true);
    if (f.mode === 'inactive') q.where('c.active', false);
    if (f.groupIds) q.whereIn('c.competence_group_id', f.groupIds);
    if (f.types) q.whereIn('c.type', f.types);
    if (f.term) {
      const like = `%${f.term.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
      q.where((w) => void w.whereILike('c.title', like).orWhereILike('c.description', like));
    }
    if (f.categoryIds) {
      q.whereIn('c.id', this.db.table('competence_categories').select('competence_id').whereIn('category_id', f.categoryIds));
    }
    if (f.attributeIds) {
      q.whereIn('c.id', this.db.table('competence_attributes').select('competence_id').whereIn('attribute_id', f.attributeIds));
    }
    if (f.ownerId !== undefined) q.where('c.owner_id', f.ownerId);
    if (f.instructorId !== undefined) q.where('c.instructor_id', f.instructorId);
    for (const organisations of f.validIn ?? []) {
      const restricted = this.db.table('competence_organisations').select('competence_id');
      const valid = this.db
        .table('competence_organisations')
        .select('competence_id')
        .whereIn('organisation_id', organisations as any);
      q.where((w) => void w.whereNotIn('c.id', restricted).orWhereIn('c.id', valid));
    }
    for (const [name, value] of Object.entries(f.customAttributes ?? {})) {
      q.whereRaw('c.custom_attributes ->> ? = ?', [name, value]);
    }
    return q
      .select('c.*')
      .orderBy([{ column: 'c.sort_order' }, { column: 'c.title' }, { column: 'c.id' }])
      .limit(page.limit)
      .offset(page.offset);
  }

  async byId(id: number): Promise<CompetenceRow | undefined> {
    return this.db.table('competences').where({ id }).first();
  }

  async byIds(ids: number[]): Promise<CompetenceRow[]> {
    return this.db.table('competences').whereIn('id', ids);
  }

  /** All descendants of the given competences, in sort order. */
  async descendants(ids: number[]): Promise<CompetenceRow[]> {
    if (ids.length === 0) return [];
    const r = await this.db.raw<{ rows: CompetenceRow[] }>(
      `with recursive down as (
         select c.* from ?? c where c.parent_id = any(?)
         union all select c.* from ?? c join down d on c.parent_id = d.id)
       select * from down order by sort_order, id`,
      [this.db.ref('competences'), ids, this.db.ref('competences')],
    );
    return r.rows;
  }

  async extras(rows: CompetenceRow[]): Promise<CompetenceExtras> {
    const ids = rows.map((r) => r.id);
    const cats = await this.db
      .table('competence_categories as cc')
      .join('categories as k', 'k.id', 'cc.category_id')
      .whereIn('cc.competence_id', ids)
      .select('cc.competence_id', 'k.id as category_id', 'k.name')
      .orderBy('k.id');
    const attrs = await this.db
      .table('competence_attributes as ca')
      .join('attributes as a', 'a.id', 'ca.attribute_id')
      .whereIn('ca.competence_id', ids)
      .select('ca.competence_id', 'a.id as attribute_id', 'a.name')
      .orderBy('a.id');
    const groupIds = [...new Set(rows.map((r) => r.competence_group_id).filter((x): x is number => x !== null))];
    const groups = await this.db.table('competence_groups').whereIn('id', groupIds).select('id', 'name');
    const byCompetence = <T extends { competence_id: number }>(list: T[]) => {
      const m = new Map<number, Omit<T, 'competence_id'>[]>();
      for (const { competence_id, ...rest } of list) m.set(competence_id, [...(m.get(competence_id) ?? []), rest]);
      return m as any;
    };
    return {
      categories: byCompetence(cats),
      attributes: byCompetence(attrs),
      groups: new Map(groups.map((g: any) => [g.id, g.name])),
    };
  }

  /** Group ids of the given groups and every group below them. */
  async groupSubtree(ids: number[]): Promise<number[]> {
    const r = await this.db.raw<{ rows: { id: number }[] }>(
      `with recursive down(id) as (
         select id from ?? where id = any(?)
         union select g.id from ?? g join down on g.parent_id = down.id)
       select id from down`,
      [this.db.ref('competence_groups'), ids, this.db.ref('competence_groups')],
    );
    return r.rows.map((x) => x.id);
  }

  async groupIdsByExternalId(externalIds: string[]): Promise<number[]> {
    return (await this.db.table('competence_groups').whereIn('external_id', externalIds).select('id')).map((r: any) => r.id);
  }

  async existingIds(table: string, ids: number[]): Promise<Set<number>> {
    return new Set((await this.db.table(table).whereIn('id', ids).select('id')).map((r: any) => r.id));
  }

  async ecourses(ids: number[] | undefined, page: Paging): Promise<CompetenceRow[]> {
    const q = this.db.table('competences').where('type', 'ecourse').whereNotNull('lms_start_url');
    if (ids) q.whereIn('id', ids);
    else q.where('active', true);
    return q.orderBy('id').limit(page.limit).offset(page.offset);
  }
}
