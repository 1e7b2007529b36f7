import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import { UnitOfWork } from '../../platform/tenant-scope/unit-of-work';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import { AuditTrail } from '../../platform/audit/audit-trail';
import type { CatalogueTreeRow } from '../competences/catalogue-tree';
import { referencesStillThere } from './concurrent-change';

/** Competence groups and categories: both are trees by parent_id, written the same way. */
export type TreeKind = 'competencegroup' | 'category';

/** A node's fields as given; parent_id null: a root. */
export interface TreeNodeData {
  name?: string;
  parent_id?: number | null;
  /** categories only */
  description?: string | null;
  /** competence groups only */
  external_id?: string | null;
}

const KINDS = {
  competencegroup: {
    table: 'competence_groups',
    link: 'competences',
    linkColumn: 'competence_group_id',
    noun: 'competence group',
    param: 'competence_group_data',
  },
  category: { table: 'categories', link: 'competence_categories', linkColumn: 'category_id', noun: 'category', param: 'category_data' },
} as const;

/**
 * Creating, changing and deleting competence groups and categories (superusers and superadmins,
 * decided by the routes). A parent must exist and a node may not move below itself (420 naming
 * parent_id); deleting a node that still has sub-nodes or competences is a 409. Each change is
 * audited (`competencegroup.*`, `category.*`) in its transaction.
 */
@injectable()
export class CatalogueTreeAuthoring {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
  ) {}

  async find(kind: TreeKind, id: number): Promise<CatalogueTreeRow | undefined> {
    return this.db.table(KINDS[kind].table).where({ id }).first();
  }

  async create(user: Principal, kind: TreeKind, data: TreeNodeData & { name: string }): Promise<CatalogueTreeRow> {
    const k = KINDS[kind];
    return referencesStillThere(() =>
      this.uow.run(async (tx) => {
        const db = tx.get(TENANT_DB);
        if (data.parent_id != null) await this.requireParent(db, kind, data.parent_id);
        const [row] = await db.table(k.table).insert(this.columns(data)).returning('*');
        await tx.get(AuditTrail).record({ type: `${kind}.created`, actor: user.userName, subject: String(row.id), details: { fields: Object.keys(data) } });
        return row;
      }),
    );
  }

  async update(user: Principal, kind: TreeKind, id: number, data: TreeNodeData): Promise<CatalogueTreeRow> {
    const k = KINDS[kind];
    return referencesStillThere(() =>
      this.uow.run(async (tx) => {
        const db = tx.get(TENANT_DB);
        const current = await db.table(k.table).where({ id }).forUpdate().first();
        if (!current) throw ApiError.notFound(`${k.noun} ${id}`);
        if (data.parent_id != null) {
          await this.requireParent(db, kind, data.parent_id);
          if (await this.isBelow(db, kind, data.parent_id, id)) {
            throw ApiError.malformed(
              `${k.param}[parent_id]`,
              `${k.noun} ${data.parent_id} is ${data.parent_id === id ? 'this one' : 'below this one'}: a ${k.noun} cannot be placed below itself`,
            );
          }
        }
        const columns = this.columns(data);
        const [row] = Object.keys(columns).length
          ? await db
              .table(k.table)
              .where({ id })
              .update({ ...columns, updated_at: db.raw('now()') }, '*')
          : [current];
        await tx.get(AuditTrail).record({ type: `${kind}.updated`, actor: user.userName, subject: String(id), details: { fields: Object.keys(data) } });
        return row;
      }),
    );
  }

  /** Deletes a node without sub-nodes and competences (else 409); answers the deleted row. */
  async delete(user: Principal, kind: TreeKind, id: number): Promise<CatalogueTreeRow> {
    const k = KINDS[kind];
    return this.uow.run(async (tx) => {
      const db = tx.get(TENANT_DB);
      const row = await db.table(k.table).where({ id }).forUpdate().first();
      if (!row) throw ApiError.notFound(`${k.noun} ${id}`);
      const [subs] = await db.table(k.table).where({ parent_id: id }).count({ n: '*' });
      const [used] = await db.table(k.link).where(k.linkColumn, id).count({ n: '*' });
      const holds = [
        Number(subs.n) ? `has ${subs.n} sub-${kind === 'category' ? 'categories' : 'groups'}` : null,
        Number(used.n) ? `is used by ${used.n} competence(s)` : null,
      ].filter(Boolean);
      if (holds.length) throw new ApiError(409, `${k.noun} ${id} ${holds.join(' and ')}; move or delete them first`);
      await db.table(k.table).where({ id }).delete();
      await tx.get(AuditTrail).record({ type: `${kind}.deleted`, actor: user.userName, subject: String(id), details: { name: row.name } });
      return row;
    });
  }

  private columns(data: TreeNodeData): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const key of ['name', 'parent_id', 'description', 'external_id'] as const) if (data[key] !== undefined) out[key] = data[key];
    return out;
  }

  private async requireParent(db: TenantDb, kind: TreeKind, parentId: number): Promise<void> {
    const k = KINDS[kind];
    if (!(await db.table(k.table).where({ id: parentId }).first('id'))) throw ApiError.malformed(`${k.param}[parent_id]`, `no ${k.noun} ${parentId}`);
  }

  /** Whether `candidate` is `id` or lies below it. */
  private async isBelow(db: TenantDb, kind: TreeKind, candidate: number, id: number): Promise<boolean> {
    const r = await db.raw<{ rows: unknown[] }>(
      `with recursive down(id) as (select ?::int union select t.id from ?? t join down on t.parent_id = down.id)
       select 1 from down where id = ? limit 1`,
      [id, db.ref(KINDS[kind].table), candidate],
    );
    return r.rows.length > 0;
  }
}
