import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { Paging } from '../../platform/http/param-types';

export interface OrganisationRow {
  id: number;
  parent_id: number | null;
  name: string;
  email: string | null;
  address: string | null;
  phone: string | null;
  extern_organisation_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface OrganisationFilter {
  /** null: roots only. */
  parentId?: number | null;
  ids?: number[];
}

const COLUMNS = ['id', 'parent_id', 'name', 'email', 'address', 'phone', 'extern_organisation_id', 'created_at', 'updated_at'];

@injectable()
export class OrganisationsRepository {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  findById(id: number): Promise<OrganisationRow | undefined> {
    return this.db.table('organisations').select(COLUMNS).where({ id }).first();
  }

  /** The organisation whose extern_organisation_id is `value`, else the one named `value` (case-insensitive; the lowest id of several). */
  async byExternalIdOrName(value: string): Promise<OrganisationRow | undefined> {
    return (
      (await this.db.table('organisations').select(COLUMNS).where({ extern_organisation_id: value }).orderBy('id').first()) ??
      (await this.db.table('organisations').select(COLUMNS).whereRaw('lower(name) = lower(?)', [value]).orderBy('id').first())
    );
  }

  list(filter: OrganisationFilter, page: Paging): Promise<OrganisationRow[]> {
    const q = this.db
      .table('organisations')
      .select(COLUMNS)
      .orderBy([{ column: 'name' }, { column: 'id' }]);
    if (filter.parentId === null) q.whereNull('parent_id');
    else if (filter.parentId !== undefined) q.where('parent_id', filter.parentId);
    if (filter.ids) q.whereIn('id', filter.ids);
    return q.limit(page.limit).offset(page.offset);
  }

  children(id: number): Promise<Pick<OrganisationRow, 'id' | 'name'>[]> {
    return this.db
      .table('organisations')
      .select('id', 'name')
      .where({ parent_id: id })
      .orderBy([{ column: 'name' }, { column: 'id' }]);
  }

  /** The given organisations and every organisation below them. */
  async subtreeIds(rootIds: number[]): Promise<number[]> {
    if (rootIds.length === 0) return [];
    const r = await this.db.raw<{ rows: { id: number }[] }>(
      `with recursive sub(id) as (
         select id from ?? where id = any(?)
         union
         select o.id from ?? o join sub on o.parent_id = sub.id)
       select id from sub order by id`,
      [this.db.ref('organisations'), rootIds, this.db.ref('organisations')],
    );
    return r.rows.map((row) => row.id);
  }

  /** Organisations by external id (an import's batch), in one statement; an external id may name several. */
  findByExternIds(values: readonly string[]): Promise<OrganisationRow[]> {
    if (values.length === 0) return Promise.resolve([]);
    return this.db
      .table('organisations')
      .select(COLUMNS)
      .whereIn('extern_organisation_id', [...new Set(values)])
      .orderBy('id');
  }

  /** Ids among `ids` that are no organisation. */
  async missing(ids: readonly number[]): Promise<number[]> {
    if (ids.length === 0) return [];
    const found = new Set(
      (
        await this.db
          .table('organisations')
          .whereIn('id', [...new Set(ids)])
          .select('id')
      ).map((r: { id: number }) => r.id),
    );
    return [...new Set(ids)].filter((id) => !found.has(id));
  }

  /** The row, locked until the transaction ends: a person or sub-organisation added meanwhile waits (its foreign key). */
  findForUpdate(id: number): Promise<OrganisationRow | undefined> {
    return this.db.table('organisations').select(COLUMNS).where({ id }).forUpdate().first();
  }

  /**
   * Serialises the changes of the tenant's tree shape (moves, deletions) until the transaction
   * ends: two moves at once could otherwise each pass the cycle check and make a cycle together.
   */
  async lockTree(): Promise<void> {
    await this.db.raw('select pg_advisory_xact_lock(hashtext(?))', [`organisation_tree:${this.db.schema}`]);
  }

  /** Whether `candidate` is `root` or lies anywhere below it. */
  async isWithin(root: number, candidate: number): Promise<boolean> {
    const r = await this.db.raw<{ rows: unknown[] }>(
      `with recursive sub(id) as (
         select id from ?? where id = ?
         union select o.id from ?? o join sub on o.parent_id = sub.id)
       select 1 from sub where id = ? limit 1`,
      [this.db.ref('organisations'), root, this.db.ref('organisations'), candidate],
    );
    return r.rows.length > 0;
  }

  /** What the people module holds in the organisation: its members (any state) and its direct sub-organisations. */
  async holdings(id: number): Promise<{ persons: number; children: number }> {
    const [persons] = await this.db.table('persons').where({ organisation_id: id }).count({ n: '*' });
    const [children] = await this.db.table('organisations').where({ parent_id: id }).count({ n: '*' });
    return { persons: Number(persons.n), children: Number(children.n) };
  }

  async update(id: number, columns: Partial<Omit<OrganisationRow, 'id' | 'created_at' | 'updated_at'>>): Promise<void> {
    await this.db
      .table('organisations')
      .where({ id })
      .update({ ...columns, updated_at: this.db.fn.now() });
  }

  /** Deletes the row; its manager links go with it (foreign key cascade). */
  async remove(id: number): Promise<void> {
    await this.db.table('organisations').where({ id }).delete();
  }

  async insert(row: Omit<OrganisationRow, 'id' | 'created_at' | 'updated_at'>): Promise<number> {
    const [r] = await this.db.table('organisations').insert(row).returning('id');
    return r.id;
  }
}
