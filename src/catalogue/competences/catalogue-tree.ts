import type { TenantDb } from '../../platform/tenant-scope/tenant-db';

/** A competence group or a category: both are trees by parent_id. */
export interface CatalogueTreeRow {
  id: number;
  parent_id: number | null;
  name: string;
  description?: string | null;
  external_id?: string | null;
}

/** Every competence group, ordered by id. */
export async function competenceGroupRows(db: TenantDb): Promise<CatalogueTreeRow[]> {
  return db.table('competence_groups').orderBy('id');
}

/** One page of competence groups, ordered by id: the root groups only, or all of them. */
export async function competenceGroupPage(db: TenantDb, page: { all: boolean; limit: number; offset: number }): Promise<CatalogueTreeRow[]> {
  const q = db.table('competence_groups').orderBy('id');
  if (!page.all) q.whereNull('parent_id');
  return q.limit(page.limit).offset(page.offset);
}

/** Every category, ordered by id. */
export async function categoryRows(db: TenantDb): Promise<CatalogueTreeRow[]> {
  return db.table('categories').orderBy('id');
}
