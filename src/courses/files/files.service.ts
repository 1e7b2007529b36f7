import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Knex } from 'knex';
import { inject, injectable } from 'tsyringe';
import { TENANT, TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import { FILE_STORE, type FileStore } from '../../platform/files/file-store';
import { UnitOfWork } from '../../platform/tenant-scope/unit-of-work';
import { downloadContentType } from './download-type';
import { isoDateTime } from '../events/event.presenter';

export interface NewFile {
  ownerId: number;
  uploadedBy: number;
  eventId?: number | null;
  surveyAnswerId?: number | null;
  title?: string | null;
  fileName: string;
  mimeType: string;
  data: Buffer;
}

/** A file's row, with the instructor of its event (ceid). */
export interface StoredFile {
  id: number;
  person_id: number;
  uploaded_by: number | null;
  event_id: number | null;
  instructor_id: number | null;
  survey_answer_id: number | null;
  title: string | null;
  file_name: string;
  mime_type: string;
  size: string | number;
  storage_key: string;
  created_at: Date;
}

/** A file as its description shows it: with its owner's user name (the people module's, read by a flow). */
export type FileRow = StoredFile & { user_name: string };

/** The description of a stored file (the spec leaves its contents open). */
export const FileView = z
  .object({
    file_id: z.number().int(),
    user_name: z.string().describe('the person the file belongs to'),
    filetitle: z.string().nullable().describe('display title; defaults to the file name'),
    file_name: z.string(),
    mime_type: z.string(),
    size: z.number().int().describe('bytes'),
    event_id: z.number().int().nullable().describe('ceid given at upload: the event whose instructor may see the file'),
    survey_answer_id: z.number().int().nullable().describe('the survey answer the file was uploaded with'),
    created_at: isoDateTime(),
    download_url: z.string().describe('relative URL of the bytes (GET, same login)'),
  })
  .meta({ id: 'File' });

export function presentFile(r: FileRow): Record<string, unknown> {
  return {
    file_id: r.id,
    user_name: r.user_name,
    filetitle: r.title,
    file_name: r.file_name,
    mime_type: r.mime_type,
    size: Number(r.size),
    event_id: r.event_id,
    survey_answer_id: r.survey_answer_id,
    created_at: r.created_at,
    download_url: `/api/files/${r.id}/content`,
  };
}

@injectable()
export class FilesService {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(FILE_STORE) private readonly store: FileStore,
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
  ) {}

  /**
   * Stores the bytes first, then the row; a failed insert removes the bytes again. The quotas
   * (files.max_per_person, files.max_bytes_per_person, files.max_per_tenant,
   * files.max_bytes_per_tenant) are checked before the bytes are written and again, under a
   * transaction lock of the tenant's files, with the row's insert: past one, 413 and nothing kept.
   */
  async save(f: NewFile): Promise<number> {
    await this.assertWithinQuota(this.db, f.ownerId, f.data.length);
    const key = randomUUID().replace(/-/g, '');
    await this.store.put(this.tenant.schema, key, f.data);
    try {
      return await this.uow.run(async (tx) => {
        const db = tx.get(TENANT_DB);
        await db.raw('select pg_advisory_xact_lock(hashtext(?))', [`${this.tenant.schema}:files`]);
        await this.assertWithinQuota(db, f.ownerId, f.data.length);
        return this.insert(db, f, key);
      });
    } catch (err) {
      await this.store.remove(this.tenant.schema, key).catch(() => {});
      throw err;
    }
  }

  /** What the person and the tenant keep now, and the quotas; 413 naming the item a new file of `bytes` would pass. */
  private async assertWithinQuota(db: TenantDb, ownerId: number, bytes: number): Promise<void> {
    const config = this.tenant.config;
    const { rows } = await db.raw(
      `select count(*) filter (where person_id = ?)::bigint as person_files, coalesce(sum(size) filter (where person_id = ?), 0)::bigint as person_bytes,
              count(*)::bigint as files, coalesce(sum(size), 0)::bigint as bytes from ??`,
      [ownerId, ownerId, db.ref('files')],
    );
    const now = rows[0];
    const checks: [string, number, number, string][] = [
      ['files.max_per_person', Number(now.person_files) + 1, config.get('files.max_per_person'), 'files for this person'],
      ['files.max_bytes_per_person', Number(now.person_bytes) + bytes, config.get('files.max_bytes_per_person'), 'bytes of files for this person'],
      ['files.max_per_tenant', Number(now.files) + 1, config.get('files.max_per_tenant'), 'files in this tenant'],
      ['files.max_bytes_per_tenant', Number(now.bytes) + bytes, config.get('files.max_bytes_per_tenant'), 'bytes of files in this tenant'],
    ];
    for (const [item, after, limit, what] of checks) {
      if (after > limit) {
        throw new ApiError(413, `upload quota reached: this file would make ${after} ${what}, above ${limit} (config item ${item})`, { quota: item, limit });
      }
    }
  }

  private async insert(db: TenantDb, f: NewFile, key: string): Promise<number> {
    const [row] = await db
      .table('files')
      .insert({
        person_id: f.ownerId,
        uploaded_by: f.uploadedBy,
        event_id: f.eventId ?? null,
        survey_answer_id: f.surveyAnswerId ?? null,
        title: f.title ?? null,
        file_name: f.fileName,
        mime_type: f.mimeType,
        size: f.data.length,
        storage_key: key,
      })
      .returning('id');
    return row.id;
  }

  /** Files as `f` (columns person_id, ...) with their event's instructor: StoredFile rows a flow may widen (with the owner's user name). */
  base(): Knex.QueryBuilder {
    return this.db.table('files as f').leftJoin('events as e', 'e.id', 'f.event_id').select('f.*', 'e.instructor_id');
  }

  /** The file, read through `from` (base() or a flow's widening of it); 404 when missing. */
  async find<R extends StoredFile = StoredFile>(id: number, from: Knex.QueryBuilder = this.base()): Promise<R> {
    const row = await from.where('f.id', id).first();
    if (!row) throw ApiError.notFound(`file ${id}`);
    return row;
  }

  /** Whether file `fileId` was uploaded with survey answer `answerId`. */
  async isOfSurveyAnswer(fileId: number, answerId: number): Promise<boolean> {
    return !!(await this.db.table('files').where({ id: fileId, survey_answer_id: answerId }).first('id'));
  }

  /** Visible to its owner, whoever uploaded it, a superuser and, with ceid, the event's instructor. */
  assertVisible(user: Principal, f: StoredFile): void {
    if (user.superuser || user.personId === f.person_id || user.personId === f.uploaded_by) return;
    if (f.instructor_id !== null && f.instructor_id === user.personId) return;
    throw ApiError.forbidden('not authorised to see this file: only its owner, the event instructor or a superuser may');
  }

  /** The Content-Type a download is sent with: the stored type when it is on the allow-list, else application/octet-stream. */
  downloadType(f: StoredFile): string {
    return downloadContentType(f.mime_type);
  }

  async content(f: StoredFile): Promise<Buffer> {
    const data = await this.store.get(this.tenant.schema, f.storage_key);
    if (!data) throw new ApiError(404, `the contents of file ${f.id} are missing from storage`);
    return data;
  }
}
