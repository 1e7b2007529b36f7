import { z } from 'zod';
import { inject, injectable } from 'tsyringe';
import { ApiError } from '../../platform/errors/api-error';
import { p } from '../../platform/http/param-types';
import { OrganisationAuthoring, OrganisationData, OrganisationsRepository, OrganisationsService, type OrganisationRow } from '../../people';
import type { Transaction } from '../../platform/tenant-scope/unit-of-work';
import {
  OrganisationsOfBatch,
  SeenKeys,
  cell,
  eachLine,
  fail,
  parseOrFail,
  type Checked,
  type ImportCaller,
  type ImportLine,
  type ImportRows,
} from './import-rows';

const Input = z.object({ organisation_data: OrganisationData.partial({ name: true }) });
const FIELDS = ['name', 'email', 'address', 'phone', 'extern_organisation_id'] as const;

/**
 * Lines of an organisations import: a new organisation as POST /api/organisations makes it
 * (OrganisationsService.create), a known one changed in the columns that differ. A parent named by
 * external id may be an organisation an earlier line creates. See IMPORT_COLUMNS.organisations.
 */
@injectable()
export class OrganisationImportRows implements ImportRows {
  private caller!: ImportCaller;
  private header = new Set<string>();
  private readonly seen = new SeenKeys();
  /** Organisations earlier lines create, by external id: their ids once written. */
  private readonly planned = new Map<string, { id?: number }>();

  constructor(@inject(OrganisationsRepository) private readonly organisations: OrganisationsRepository) {}

  start(caller: ImportCaller, header: readonly string[]): void {
    this.caller = caller;
    this.header = new Set(header);
  }

  async check(lines: readonly ImportLine[]): Promise<Checked[]> {
    const [targets, parents] = await Promise.all([
      OrganisationsOfBatch.read(this.organisations, lines),
      OrganisationsOfBatch.read(this.organisations, lines, 'parent_id', 'parent_extern_organisation_id'),
    ]);
    const ids = lines.map((l) => this.targetId(l, targets)).filter((id): id is number => id !== undefined);
    const rows = new Map((await this.organisations.list({ ids }, { limit: ids.length || 1, offset: 0 })).map((o) => [o.id, o]));
    return eachLine(lines, async (l) => {
      const id = this.targetId(l, targets, true);
      const data = this.data(l);
      const parent = this.parent(l, parents);
      const existing = id === undefined ? undefined : rows.get(id);
      const checked = existing ? await this.update(l, existing, data, parent) : this.create(l, data, parent);
      const key = cell(l, 'organisation_id') ?? cell(l, 'extern_organisation_id')!;
      this.seen.claim(l.line, cell(l, 'organisation_id') ? 'organisation_id' : 'extern_organisation_id', key, `organisation "${key}"`);
      return checked;
    });
  }

  /** The organisation a line changes: by id (404 when unknown), else by external id (none: a new one). */
  private targetId(l: ImportLine, targets: OrganisationsOfBatch, strict = false): number | undefined {
    try {
      if (cell(l, 'organisation_id') !== undefined) return targets.resolve(l);
      const extern = cell(l, 'extern_organisation_id');
      if (extern === undefined) {
        if (strict) fail(l.line, 'extern_organisation_id', ApiError.missing('organisation_data[extern_organisation_id]'));
        return undefined;
      }
      return targets.knows(extern) ? targets.byExternId(l.line, 'extern_organisation_id', extern) : undefined;
    } catch (err) {
      if (strict) throw err;
      return undefined;
    }
  }

  private data(l: ImportLine): Record<string, unknown> {
    const data: Record<string, unknown> = {};
    for (const c of FIELDS) if (this.header.has(c) && !(c === 'name' && cell(l, c) === undefined)) data[c] = l.cells.get(c) ?? '';
    const parsed = parseOrFail(l.line, Input, { organisation_data: data }).organisation_data as Record<string, unknown>;
    return parsed;
  }

  /** The parent the line names: null for a root (parent_id 0 or an empty parent column), undefined when it names none. */
  private parent(l: ImportLine, parents: OrganisationsOfBatch): { id: number | null } | { planned: string } | undefined {
    const raw = cell(l, 'parent_id');
    if (raw !== undefined) {
      const id = parseOrFail(l.line, z.object({ parent_id: p.int().pipe(z.number().min(0, 'must be 0 (root) or an organisation id')) }), {
        parent_id: raw,
      }).parent_id;
      return id === 0 ? { id: null } : { id: parents.resolve(l, 'parent_id', 'parent_extern_organisation_id')! };
    }
    const extern = cell(l, 'parent_extern_organisation_id');
    if (extern === undefined) return this.header.has('parent_id') || this.header.has('parent_extern_organisation_id') ? { id: null } : undefined;
    if (this.planned.has(extern) && !parents.knows(extern)) return { planned: extern };
    return { id: parents.byExternId(l.line, 'parent_extern_organisation_id', extern) };
  }

  private parentColumn(): string {
    return this.header.has('parent_id') ? 'parent_id' : 'parent_extern_organisation_id';
  }

  /** The parent's id when the line is written (an organisation planned by an earlier line has one by then). */
  private parentId(l: ImportLine, parent: { id: number | null } | { planned: string } | undefined): number | null | undefined {
    if (!parent) return undefined;
    if ('id' in parent) return parent.id;
    const id = this.planned.get(parent.planned)?.id;
    if (id === undefined) fail(l.line, 'parent_extern_organisation_id', ApiError.notFound(`organisation with extern_organisation_id "${parent.planned}"`));
    return id;
  }

  private create(l: ImportLine, data: Record<string, unknown>, parent: ReturnType<OrganisationImportRows['parent']>): Checked {
    if (!data.name) fail(l.line, 'name', ApiError.missing('organisation_data[name]'));
    const extern = data.extern_organisation_id as string;
    const plan: { id?: number } = {};
    this.planned.set(extern, plan);
    const { user } = this.caller;
    return {
      line: l.line,
      outcome: 'created',
      write: async (tx) => {
        const parentId = this.parentId(l, parent);
        const row = await tx.get(OrganisationsService).create(user, { ...(data as { name: string }), parent_id: parentId ?? undefined });
        plan.id = row.id;
      },
    };
  }

  private async update(
    l: ImportLine,
    o: OrganisationRow,
    data: Record<string, unknown>,
    parent: ReturnType<OrganisationImportRows['parent']>,
  ): Promise<Checked> {
    const changes: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(data)) if (v !== undefined && v !== o[k as keyof OrganisationRow]) changes[k] = v;
    const planned = parent && 'planned' in parent;
    const parentId = parent && 'id' in parent ? parent.id : undefined;
    if (parentId !== undefined && parentId !== o.parent_id) {
      const param = 'organisation_data[parent_id]';
      if (parentId === o.id) fail(l.line, this.parentColumn(), ApiError.malformed(param, `organisation ${o.id} cannot be its own parent`));
      if (parentId !== null && (await this.organisations.isWithin(o.id, parentId))) {
        fail(
          l.line,
          this.parentColumn(),
          ApiError.malformed(param, `organisation ${parentId} lies below organisation ${o.id}; moving it there would make a cycle`),
        );
      }
      changes.parent_id = parentId;
    }
    if (!Object.keys(changes).length && !planned) return { line: l.line, outcome: 'unchanged' };
    const { user } = this.caller;
    return {
      line: l.line,
      outcome: 'updated',
      write: async (tx: Transaction) => {
        if (planned) changes.parent_id = this.parentId(l, parent);
        const { parent_id, ...fields } = changes;
        await tx
          .get(OrganisationAuthoring)
          .update(user, o.id, { ...fields, ...(parent_id !== undefined ? { parent_id: (parent_id as number | null) ?? 0 } : {}) });
      },
    };
  }
}
